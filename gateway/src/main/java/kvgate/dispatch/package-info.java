/**
 * The dispatcher: every operation from every protocol passes the configured filter chain and enters the route tree
 * (or the counter store) here; backend failures of any kind come back as results, never as exceptions.
 */
package kvgate.dispatch;
