/**
 * The dispatcher: every operation from every protocol passes the configured filter chain and reaches the backend
 * here; backend failures of any kind come back as results, never as exceptions.
 */
package kvgate.dispatch;
