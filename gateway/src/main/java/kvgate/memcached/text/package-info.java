/**
 * memcached's text protocol and its meta commands: request lines (and the data blocks of storage commands) to
 * {@link kvgate.memcached.text.TextCommand}s, and {@link kvgate.memcached.text.TextReply}s to bytes, parsed and
 * refused exactly as memcached 1.6 parses and refuses them. Nothing here knows of operations or backends.
 */
package kvgate.memcached.text;
