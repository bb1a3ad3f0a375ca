/**
 * The dispatcher: every operation from every protocol passes the configured filter chain and enters the route tree
 * here, whose leaves are backend instances with the generic layer filling what each lacks; backend failures of any
 * kind come back as results, never as exceptions.
 */
package kvgate.dispatch;
