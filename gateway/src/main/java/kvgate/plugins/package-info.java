/**
 * PF4J loading: finds backend factories and route node factories in the plugin directories. The built-in local store
 * is found here exactly like a third-party plugin; a plugin that does not load stops start-up with its name.
 */
package kvgate.plugins;
