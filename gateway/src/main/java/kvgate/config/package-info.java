/**
 * The configuration model: {@code key = value} files with {@code --key=value} command-line overrides, every key
 * declared with its default and allowed values, and start-up stopped with a message naming any bad key or value.
 */
package kvgate.config;
