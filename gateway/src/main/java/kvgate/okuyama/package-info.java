/**
 * The okuyama text protocol: the line codec (bytes to {@link kvgate.okuyama.OkuyamaLine}, reply lines to bytes) and
 * the translator between okuyama's numbered methods and the operation stream.
 */
package kvgate.okuyama;
