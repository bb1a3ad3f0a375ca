/**
 * What the JMH benchmarks (codecs, translators, the local store) share: a channel context to hand the codecs, a backend
 * that answers at once. The benchmarks themselves live in the packages of the classes they measure, to reach
 * their package-private parts as the gateway's pipeline does.
 */
package kvgate.bench;
