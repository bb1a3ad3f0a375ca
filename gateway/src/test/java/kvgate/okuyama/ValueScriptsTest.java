package kvgate.okuyama;

import static kvgate.testing.OkuyamaClient.b64;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * getValueScript (8) and getValueScriptForUpdate (9) over a real socket with {@code okuyama.scripts} on: the
 * reference's variables and replies, writes back with execRet "2", and a sandbox that a script cannot leave or
 * hold: no Java classes, no regular expressions, a time and an allocation limit; and off, an error.
 */
class ValueScriptsTest {
    private static TestGateway gateway;

    @BeforeAll
    static void start() throws Exception {
        // A second of script time: the allocation bomb below must meet the memory limit first, and with test JVMs
        // beside it on a small machine, 300 ms was not always enough for its few dozen steps.
        gateway = TestGateway.start(Map.of("okuyama.scripts", "true", "okuyama.script_timeout_ms", "1000",
                "okuyama.script_memory", "16m"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static String run(OkuyamaClient client, int code, String key, String script) throws Exception {
        return client.call(code + "," + b64(key) + "," + b64(script));
    }

    @Test
    void theScriptSeesKeyAndValueAndItsExecRetDecides() throws Exception {
        try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            client.call("1," + b64("greeting") + ",(B),0," + b64("hello 世界"));
            assertEquals("8,true," + b64("greeting=hello 世界!"), run(client, 8, "greeting",
                    "var execRet = '1'; var retValue = dataKey + '=' + dataValue + '!';"));
            assertEquals("2,true," + b64("hello 世界"), client.call("2," + b64("greeting")), "1 stores nothing");
            assertEquals("8,false,", run(client, 8, "greeting", "var execRet = '0'; var retValue = 'x';"));
            assertEquals("8,false,", run(client, 8, "greeting", "var nothing = 1;"));
            assertEquals("8,true,(B)", run(client, 8, "greeting", "var execRet = '1'; var retValue = '';"));
            assertEquals("8,false,", run(client, 8, "missing-key", "var execRet = '1'; var retValue = 'x';"));
            assertEquals("8,true," + b64("hello 世界"), client.call("8," + b64("greeting") + ",(B)"), "no script");
            // Replacing and splitting by strings work without regular expressions.
            assertEquals("8,true," + b64("hello|world"), run(client, 8, "greeting",
                    "var execRet = '1'; var retValue = 'hello world'.replace(' ', '|').split('|').join('|');"));
        }
    }

    @Test
    void execRetTwoStoresTheResultKeepingTheExpiry() throws Exception {
        try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            client.call("1," + b64("counter") + ",(B),0," + b64("41") + ",600,");
            assertEquals("9,true," + b64("42"), run(client, 9, "counter",
                    "var execRet = '2'; var retValue = String(Number(dataValue) + 1);"));
            assertEquals("8,true," + b64("43"), run(client, 8, "counter",
                    "var execRet = '2'; var retValue = String(Number(dataValue) + 1);"));
            assertEquals("2,true," + b64("43"), client.call("2," + b64("counter")));
            String exported = String.join("\n", client.callUntil("101", "-1"));
            assertTrue(exported.contains("+," + b64("counter") + "," + b64("43") + ",0-"), "the expiry stays: "
                    + exported);
        }
    }

    @Test
    void errorsAreAnsweredWithTheReasonUpToItsFirstComma() throws Exception {
        try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            client.call("1," + b64("v") + ",(B),0," + b64("x"));
            String thrown = run(client, 8, "v", "throw new Error('broken, badly');");
            assertEquals("8,error,Error: broken", thrown);
            assertTrue(run(client, 8, "v", "var execRet = ;").startsWith("8,error,"), "a syntax error");
        }
    }

    @Test
    void theSandboxHasNoJavaNoPatternsAndLimits() throws Exception {
        try (OkuyamaClient client = new OkuyamaClient(gateway.okuyamaPort())) {
            client.call("1," + b64("s") + ",(B),0," + b64("x"));
            for (String escape : new String[] {"java.lang.System.exit(1)", "Packages.java.lang.Runtime",
                    "importClass(java.io.File)", "new java.io.File('/')", "org.mozilla.javascript.Context"}) {
                String reply = run(client, 8, "s", "var execRet = '1'; var retValue = String(" + escape + ");");
                assertTrue(reply.startsWith("8,error,"), escape + ": " + reply);
            }
            for (String pattern : new String[] {"/a+/.test(dataValue)", "dataValue.match('x')",
                    "dataValue.search('x')", "dataValue.replace(/x/, 'y')"}) {
                String reply = run(client, 8, "s", "var execRet = '1'; var retValue = String(" + pattern + ");");
                assertTrue(reply.contains("regular expressions are not available"), pattern + ": " + reply);
            }
            assertTrue(run(client, 8, "s", "var execRet = '1'; var retValue = String(new RegExp('a'));")
                    .startsWith("8,error,"), "no RegExp constructor");
            long started = System.nanoTime();
            assertEquals("8,error,the script ran past okuyama.script_timeout_ms", run(client, 8, "s",
                    "while (true) { try { for (;;) {} } catch (e) {} }"));
            assertTrue((System.nanoTime() - started) / 1_000_000 < 3000, "stopped near its limit");
            // A new string of 64 KiB each step (and the array it is joined from): the limit is passed within a few
            // dozen steps, long before the time limit even on a machine busy with other tests.
            assertEquals("8,error,the script allocated more than okuyama.script_memory", run(client, 8, "s",
                    "var a = []; while (true) { a.push(new Array(65536).join('x')); }"));
            assertTrue(run(client, 8, "s", "function f() { return f() + 1; } f();").startsWith("8,error,"));
            assertEquals(2, gateway.gateway().metrics().refusals("okuyama", "script_limit").count(),
                    "the two stopped at a limit are counted");
            // The gateway serves on, and the next script runs.
            assertEquals("8,true," + b64("ok"), run(client, 8, "s", "var execRet = '1'; var retValue = 'ok';"));
        }
    }

    @Test
    void offTheyAnswerAnError() throws Exception {
        try (TestGateway plain = TestGateway.start(Map.of());
             OkuyamaClient client = new OkuyamaClient(plain.okuyamaPort())) {
            assertEquals("8,error,value scripts are off (okuyama.scripts)", run(client, 8, "k", "var execRet='1';"));
            assertEquals("9,error,value scripts are off (okuyama.scripts)", run(client, 9, "k", "var execRet='1';"));
        }
    }
}
