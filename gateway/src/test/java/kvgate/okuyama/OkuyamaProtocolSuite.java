package kvgate.okuyama;

import static kvgate.testing.OkuyamaClient.b64;
import static kvgate.testing.OkuyamaClient.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.Inflater;
import kvgate.testing.BinaryClient;
import kvgate.testing.OkuyamaClient;
import kvgate.testing.TestGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The okuyama protocol over a real socket, method by method, with the reply lines the reference server writes. One
 * suite for every backend: a subclass starts {@link #gateway} on its backend.
 */
abstract class OkuyamaProtocolSuite {
    static TestGateway gateway;
    private static final AtomicInteger UNIQUE = new AtomicInteger();
    OkuyamaClient client;

    @BeforeEach
    void connect() throws Exception {
        client = new OkuyamaClient(gateway.okuyamaPort());
    }

    @AfterEach
    void disconnect() throws Exception {
        client.close();
    }

    @AfterAll
    static void stopGateway() {
        if (gateway != null) {
            gateway.close();
            gateway = null;
        }
    }

    /** A key (or tag) no other test uses, Base64-encoded as okuyama sends it. */
    static String fresh(String name) {
        return b64(name + "-" + UNIQUE.incrementAndGet());
    }

    static Set<String> decodedList(String reply, String prefix) {
        assertTrue(reply.startsWith(prefix), reply);
        Set<String> keys = new HashSet<>();
        for (String key : reply.substring(prefix.length()).split(":")) {
            keys.add(text(key));
        }
        return keys;
    }

    @Test
    void initClientAndVersionAnswerAsTheReferenceClientExpects() throws Exception {
        assertEquals("0,true,1572864", client.call("0"));
        String version = client.call("999");
        assertEquals("999,VERSION okuyama-0.9.6.3,", version);
        // The reference client reads "x.yz..." after "okuyama-" and enables everything from 0.9 on.
        String[] parts = version.split(",")[1].split("okuyama-")[1].split("\\.");
        assertTrue(Double.parseDouble(parts[0] + "." + String.join("", Arrays.copyOfRange(parts, 1, parts.length)))
                >= 0.9);
    }

    @Test
    void setGetAndBlankValues() throws Exception {
        String key = fresh("k");
        assertEquals("2,false,", client.call("2," + key));
        assertEquals("1,true,OK", client.call("1," + key + ",(B),0," + b64("hello 世界")));
        assertEquals("2,true," + b64("hello 世界"), client.call("2," + key));
        assertEquals("1,true,OK", client.call("1," + key + ",(B),0,(B)"));
        assertEquals("2,true,(B)", client.call("2," + key));
    }

    @Test
    void setNewValueOnlyOnce() throws Exception {
        String key = fresh("new");
        assertEquals("6,true,OK", client.call("6," + key + ",(B),0," + b64("first")));
        assertEquals("6,false,NG:Data has already been registered", client.call("6," + key + ",(B),0," + b64("x")));
        assertEquals("2,true," + b64("first"), client.call("2," + key));
    }

    @Test
    void expiryInSecondsWhenTheLineEndsWithAComma() throws Exception {
        String key = fresh("exp");
        assertEquals("1,true,OK", client.call("1," + key + ",(B),0," + b64("soon") + ",1,"));
        assertEquals("2,true," + b64("soon"), client.call("2," + key));
        String past = fresh("past");
        assertEquals("1,true,OK", client.call("1," + past + ",(B),0," + b64("gone") + ",-1,"));
        assertEquals("2,false,", client.call("2," + past));
        long deadline = System.currentTimeMillis() + 5000;
        String reply;
        do {
            Thread.sleep(100);
            reply = client.call("2," + key);
        } while (!reply.equals("2,false,") && System.currentTimeMillis() < deadline);
        assertEquals("2,false,", reply);
    }

    @Test
    void getValueAndUpdateExpireTimeExtendsByTheStoredPeriod() throws Exception {
        String key = fresh("extend");
        long stored = System.nanoTime();
        assertEquals("1,true,OK", client.call("1," + key + ",(B),0," + b64("kept") + ",3,"));
        // Written again without an expiry, an item no longer has the period it was first stored with (checked
        // while the first item's period runs, so that the two waits are one).
        String rewritten = fresh("rewritten");
        client.call("1," + rewritten + ",(B),0," + b64("a") + ",1,");
        client.call("1," + rewritten + ",(B),0," + b64("b"));
        assertEquals("17,true," + b64("b"), client.call("17," + rewritten));
        String forever = fresh("forever");
        client.call("1," + forever + ",(B),0," + b64("v"));
        assertEquals("17,true," + b64("v"), client.call("17," + forever), "no period: nothing to extend");
        assertEquals("17,false,", client.call("17," + fresh("missing")));
        Thread.sleep(Math.max(0, 1500 - (System.nanoTime() - stored) / 1_000_000));
        assertEquals("17,true," + b64("kept"), client.call("17," + key));
        assertEquals("2,true," + b64("b"), client.call("2," + rewritten), "no expiry was put back");
        // Stored for 3 s, extended by 3 s at 1.5 s: past the first expiry, the item is there.
        Thread.sleep(Math.max(0, 3500 - (System.nanoTime() - stored) / 1_000_000));
        assertEquals("2,true," + b64("kept"), client.call("2," + key));
    }

    @Test
    void truncateEmptiesTheKeyspaceItsListsAndNothingForAPrefix() throws Exception {
        String key = fresh("doomed");
        String list = fresh("doomed-list");
        String tag = fresh("doomed-tag");
        client.call("1," + key + "," + tag + ",0," + b64("v"));
        assertEquals("4,true," + key, client.call("3," + tag + ",true"));
        assertEquals("51,true,OK", client.call("51," + list + ",0"));
        assertEquals("61,true,", client.call("61,abcde"), "no key bears an isolation prefix");
        assertEquals("2,true," + b64("v"), client.call("2," + key));
        assertEquals("61,error,The mistake is found in the deletion specification", client.call("61,abcdef"));
        assertEquals("61,error,The mistake is found in the deletion specification", client.call("61"));
        assertEquals("61,true,", client.call("61,all"));
        assertEquals("2,false,", client.call("2," + key));
        assertEquals("57,false,", client.call("57," + list + ",0"));
        assertEquals("4,false,", client.call("3," + tag + ",true"), "the tag went with its keys");
        assertEquals("1,true,OK", client.call("1," + key + ",(B),0," + b64("again")), "usable at once");
        assertEquals("2,true," + b64("again"), client.call("2," + key));
    }

    @Test
    void dataExportAndKeyListGiveEveryItemThenMinusOne() throws Exception {
        String plain = fresh("export");
        String expiring = fresh("export-exp");
        client.call("1," + plain + ",(B),0," + b64("one,two"));
        client.call("1," + expiring + ",(B),0," + b64("later") + ",600,");
        List<String> keys = client.callUntil("103", "-1");
        assertTrue(keys.contains(plain) && keys.contains(expiring), keys.toString());
        // The export's parameters line, which a DataNode reads, gets no reply of its own.
        List<String> lines = client.callUntil("101\n1,0", "-1");
        String plainLine = lines.stream().filter(line -> line.startsWith("+," + plain + ",")).findFirst()
                .orElseThrow(() -> new AssertionError(lines.toString()));
        assertTrue(plainLine.matches("\\+," + java.util.regex.Pattern.quote(plain) + ","
                + java.util.regex.Pattern.quote(b64("one,two")) + "!\\d+,\\d+,;"), plainLine);
        String expiringLine = lines.stream().filter(line -> line.startsWith("+," + expiring + ",")).findFirst()
                .orElseThrow(() -> new AssertionError(lines.toString()));
        assertTrue(expiringLine.matches("\\+," + java.util.regex.Pattern.quote(expiring) + ","
                + java.util.regex.Pattern.quote(b64("later")) + ",0-\\d+-600!\\d+,\\d+,;"), "the period it was stored with: "
                + expiringLine);
        assertEquals("2,true," + b64("one,two"), client.call("2," + plain), "the stream is in step after it");
    }

    @Test
    void removeValueRepliesTheRemovedValue() throws Exception {
        String key = fresh("rm");
        assertEquals("5,false,", client.call("5," + key + ",0"));
        client.call("1," + key + ",(B),0," + b64("bye"));
        assertEquals("5,true," + b64("bye"), client.call("5," + key + ",0"));
        assertEquals("2,false,", client.call("2," + key));
    }

    @Test
    void incrAndDecrFloorAtZeroCreateOnRequestAndTreatTextAsZero() throws Exception {
        String key = fresh("n");
        assertEquals("13,false,NG", client.call("13," + key + ",0," + b64("5")));
        assertEquals("13,true," + b64("5"), client.call("13," + key + ",0," + b64("5") + ",1"));
        assertEquals("13,true," + b64("12"), client.call("13," + key + ",0," + b64("7")));
        assertEquals("14,true," + b64("9"), client.call("14," + key + ",0," + b64("3")));
        assertEquals("2,true," + b64("9"), client.call("2," + key), "stored as the reference stores it, unpadded");
        assertEquals("14,true," + b64("8"), client.call("14," + key + ",0," + b64("1")));
        assertEquals("14,true," + b64("0"), client.call("14," + key + ",0," + b64("100")));
        assertEquals("13,true," + b64("4"), client.call("13," + key + ",0," + b64("4")));
        assertEquals("13,true," + b64("0"), client.call("13," + key + ",0," + b64("-10")), "floor at 0 for incr");
        String created = fresh("created");
        assertEquals("14,true," + b64("0"), client.call("14," + created + ",0," + b64("5") + ",1"));
        String word = fresh("word");
        client.call("1," + word + ",(B),0," + b64("not a number"));
        assertEquals("13,true," + b64("3"), client.call("13," + word + ",0," + b64("3")));
        assertEquals("2,true," + b64("3"), client.call("2," + word));
        assertEquals("13,false,NG", client.call("13," + key + ",0," + b64("lots")), "non-numeric delta");
        assertEquals("13,false,NG", client.call("13," + key + ",0," + b64("99999999999")), "delta past an int");
    }

    @Test
    void incrAndDecrReadStoredNumbersAsTheReferenceDoes() throws Exception {
        // The reference reads the stored text as a Java long, exactly: a sign is part of the number, anything else
        // (spaces, a newline, nothing, digits past a long) makes it no number, which counts as 0.
        assertEquals(b64("0"), incrOn("-5", "13", "3"), "-5 + 3 floors at 0");
        assertEquals(b64("5"), incrOn("-5", "13", "10"));
        assertEquals(b64("8"), incrOn("007", "13", "1"), "leading zeros");
        assertEquals(b64("6"), incrOn("+5", "13", "1"), "a plus sign");
        assertEquals(b64("1"), incrOn(" 5", "13", "1"), "a leading space is no number");
        assertEquals(b64("1"), incrOn("5 ", "13", "1"), "nor a trailing one");
        assertEquals(b64("1"), incrOn("5\n", "13", "1"), "nor a trailing newline");
        assertEquals(b64("4"), incrOn("", "13", "4"), "an empty value");
        assertEquals(b64("0"), incrOn("", "14", "4"));
        assertEquals(b64("0"), incrOn("abc", "14", "4"), "text counts as 0 and stays at 0 when decremented");
        assertEquals(b64("0"), incrOn("9223372036854775807", "13", "1"), "past a long wraps below 0: floored");
        assertEquals(b64("9223372036854775807"), incrOn("9223372036854775806", "13", "1"), "up to a long");
        assertEquals(b64("2"), incrOn("9223372036854775808", "13", "2"), "digits past a long are no number");
        assertEquals(b64("1"), incrOn("18446744073709551615", "13", "1"));
        assertEquals(b64("9223372036854775800"), incrOn("9223372036854775807", "14", "7"));
        assertEquals(b64("0"), incrOn("3", "14", "5"), "decrement stops at 0");
    }

    @Test
    void incrAndDecrReadTheDeltaAsTheReferenceDoes() throws Exception {
        String key = fresh("delta");
        client.call("1," + key + ",(B),0," + b64("10"));
        assertEquals("13,false,NG", client.call("13," + key + ",0," + b64(" 5")), "a space");
        assertEquals("13,false,NG", client.call("13," + key + ",0," + b64("5\n")), "a newline");
        assertEquals("14,false,NG", client.call("14," + key + ",0," + b64("+5")), "decr of a plus sign");
        assertEquals("2,true," + b64("10"), client.call("2," + key), "nothing changed");
        assertEquals("13,true," + b64("15"), client.call("13," + key + ",0," + b64("+5")));
        assertEquals("14,true," + b64("12"), client.call("14," + key + ",0," + b64("-3")), "decr always subtracts");
        assertEquals("13,true," + b64("10"), client.call("13," + key + ",0," + b64("-2")), "incr of -2 subtracts");
        client.call("1," + key + ",(B),0," + b64("3000000000"));
        assertEquals("14,true," + b64("852516352"), client.call("14," + key + ",0," + b64("2147483648")),
                "decr by 2^31, which the reference reads as the int -2^31");
        assertEquals("13,false,NG", client.call("13," + key + ",0," + b64("2147483648")), "incr past an int");
    }

    /** Stores {@code stored}, applies {@code method} (13 or 14) with {@code delta}; checks both replies agree. */
    private String incrOn(String stored, String method, String delta) throws Exception {
        String key = fresh("num");
        assertEquals("1,true,OK", client.call("1," + key + ",(B),0," + (stored.isEmpty() ? "(B)" : b64(stored))));
        String reply = client.call(method + "," + key + ",0," + b64(delta));
        assertTrue(reply.startsWith(method + ",true,"), reply);
        String result = reply.substring(method.length() + 6);
        assertEquals("2,true," + result, client.call("2," + key), "the result is what is stored");
        return result;
    }

    @Test
    void concurrentIncrementsOfOneKeyAllCount() throws Exception {
        String key = fresh("hot");
        int threads = 8;
        int perThread = 50;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    try (OkuyamaClient own = new OkuyamaClient(gateway.okuyamaPort())) {
                        for (int i = 0; i < perThread; i++) {
                            assertTrue(own.call("13," + key + ",0," + b64("1") + ",1").startsWith("13,true,"));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals("2,true," + b64(Integer.toString(threads * perThread)), client.call("2," + key));
    }

    @Test
    void onlyCanonicalBase64IsTaken() throws Exception {
        // "QQ==" is the one Base64 text of "A": every other spelling of it is refused, never read as the same key.
        String a = "QQ==";
        assertEquals("1,true,OK", client.call("1," + a + ",(B),0," + b64("the value of A")));
        List<String> spellings = List.of("QQ", "QQ=", "QR==", "QQ===", " QQ==", "QQ== ", "QQ\t==", "Q\rQ==",
                "QQ==QQ==", "====", "Q", "QUJDR", "Q Q==");
        for (String spelling : spellings) {
            String shown = spelling.replace("\t", "\\t").replace("\r", "\\r");
            assertEquals("2,false,", client.call("2," + spelling), "read of " + shown);
            assertEquals("15,false,,", client.call("15," + spelling), "gets of " + shown);
            assertEquals(List.of("22,false,", "22,true," + b64("the value of A"), "END"),
                    client.callUntilEnd("22," + spelling + "," + a), "multi-get of " + shown);
            assertEquals("1,false,NG:Invalid Base64", client.call("1," + spelling + ",(B),0," + b64("x")),
                    "key " + shown);
            String key = fresh("bad-value");
            assertEquals("1,false,NG:Invalid Base64", client.call("1," + key + ",(B),0," + spelling),
                    "value " + shown);
            assertEquals("2,false,", client.call("2," + key), "nothing stored for value " + shown);
            assertEquals("1,false,NG:Invalid Base64", client.call("1," + key + "," + spelling + ",0," + b64("v")),
                    "tag " + shown);
            assertEquals("2,false,", client.call("2," + key), "nothing stored for tag " + shown);
            assertEquals("42,false,NG:Invalid Base64", client.call("42," + key + ",(B),0," + b64("v") + ","
                    + spelling + ",3,1"), "index group " + shown);
            assertEquals("13,false,NG", client.call("13," + a + ",0," + spelling), "delta " + shown);
            assertEquals("43,false,", client.call("43," + spelling + ",1,(B),3"), "search word " + shown);
            assertEquals("5,false,", client.call("5," + spelling + ",0"), "remove of " + shown);
        }
        String counter = fresh("counter");
        client.call("1," + counter + ",(B),0," + b64("10"));
        for (String five : List.of("NQ", "NR==", " NQ==", "NQ= ", "N Q==")) {
            assertEquals("13,false,NG", client.call("13," + counter + ",0," + five), "delta " + five);
        }
        assertEquals("2,true," + b64("10"), client.call("2," + counter));
        // The URL-safe alphabet is another alphabet: "-_8=" is not "+/8=".
        assertEquals("1,true,OK", client.call("1," + fresh("std") + ",(B),0,+/8="));
        assertEquals("1,false,NG:Invalid Base64", client.call("1," + fresh("url") + ",(B),0,-_8="));
        assertEquals("2,true," + b64("the value of A"), client.call("2," + a), "A is untouched");
    }

    @Test
    void versionsAreCasValues() throws Exception {
        String key = fresh("v");
        assertEquals("15,false,,", client.call("15," + key));
        assertEquals("16,false,NG:Data has already been updated", client.call("16," + key + ",(B),0," + b64("x")
                + ",12345"));
        client.call("1," + key + ",(B),0," + b64("one"));
        String[] gets = client.call("15," + key).split(",");
        assertEquals(4, gets.length);
        assertEquals(b64("one"), gets[2]);
        assertEquals("16,true,OK", client.call("16," + key + ",(B),0," + b64("two") + "," + gets[3]));
        assertEquals("16,false,NG:Data has already been updated",
                client.call("16," + key + ",(B),0," + b64("three") + "," + gets[3]));
        assertEquals("16,false,NG:Data has already been updated",
                client.call("16," + key + ",(B),0," + b64("three") + ",abc"));
        assertEquals("2,true," + b64("two"), client.call("2," + key));
    }

    @Test
    void getMultiValueKeepsRequestOrderWithMisses() throws Exception {
        List<String> keys = new ArrayList<>();
        StringBuilder line = new StringBuilder("22");
        for (int i = 0; i < 300; i++) {
            String key = fresh("multi");
            keys.add(key);
            line.append(',').append(key);
            if (i % 3 != 0) {
                client.call("1," + key + ",(B),0," + b64("value " + i));
            }
        }
        List<String> reply = client.callUntilEnd(line.toString());
        assertEquals(301, reply.size());
        for (int i = 0; i < 300; i++) {
            assertEquals(i % 3 == 0 ? "22,false," : "22,true," + b64("value " + i), reply.get(i), "key " + i);
        }
    }

    @Test
    void tagsListKeysAndValues() throws Exception {
        String red = fresh("red");
        String blue = fresh("blue");
        String a = fresh("a");
        String b = fresh("b");
        assertEquals("4,false,", client.call("3," + red + ",true"));
        assertEquals("1,true,OK", client.call("1," + a + "," + red + ":" + blue + ",0," + b64("A")));
        assertEquals("6,true,OK", client.call("6," + b + "," + red + ",0," + b64("B")));
        assertEquals(Set.of(text(a), text(b)), decodedList(client.call("3," + red + ",true"), "4,true,"));
        assertEquals(List.of("23,true," + a + "," + b64("A"), "23,true," + b + "," + b64("B"), "END"),
                client.callUntilEnd("23," + red));
        // Removing a value keeps its tags: listed with removed keys, not without.
        client.call("5," + b + ",0");
        assertEquals(Set.of(text(a), text(b)), decodedList(client.call("3," + red + ",true"), "4,true,"));
        assertEquals(Set.of(text(a)), decodedList(client.call("3," + red + ",false"), "4,true,"));
        assertEquals(List.of("23,true," + a + "," + b64("A"), "END"), client.callUntilEnd("23," + red));
        assertEquals("40,true,", client.call("40," + red + "," + a + ",0"));
        assertEquals("40,false,", client.call("40," + red + "," + a + ",0"));
        assertEquals(Set.of(text(b)), decodedList(client.call("3," + red), "4,true,"));
        assertEquals(Set.of(text(a)), decodedList(client.call("3," + blue + ",false"), "4,true,"));
        assertEquals(List.of("END"), client.callUntilEnd("23," + fresh("unknown")));
    }

    @Test
    void searchFindsIndexedValuesWithAndOrAndGroups() throws Exception {
        String group = b64("articles-" + UNIQUE.incrementAndGet());
        String tokyo = fresh("tokyo");
        String osaka = fresh("osaka");
        assertEquals("42,true,OK", client.call("42," + tokyo + ",(B),0," + b64("東京都の天気は晴れです") + ","
                + group + ",3,1"));
        assertEquals("42,true,OK", client.call("42," + osaka + ",(B),0," + b64("大阪府の天気は雨です") + ","
                + group + ",3,1"));
        assertEquals(Set.of(text(tokyo), text(osaka)),
                decodedList(client.call("43," + b64("天気") + ",1," + group + ",3"), "43,true,"));
        assertEquals(Set.of(text(tokyo)), decodedList(client.call("43," + b64("天気") + ":" + b64("晴れ") + ",1,"
                + group + ",3"), "43,true,"));
        assertEquals(Set.of(text(tokyo), text(osaka)), decodedList(client.call("43," + b64("晴れ") + ":" + b64("雨")
                + ",2," + group + ",3"), "43,true,"));
        assertEquals("43,false,", client.call("43," + b64("雪") + ",1," + group + ",3"));
        assertEquals("43,false,", client.call("43," + b64("天気") + ",1,(B),3"), "another index group");
        // Overwrite and removal: never a stale hit.
        client.call("1," + tokyo + ",(B),0," + b64("今日は曇り"));
        client.call("5," + osaka + ",0");
        assertEquals("43,false,", client.call("43," + b64("天気") + ",2," + group + ",3"));
    }

    @Test
    void removeSearchIndexTakesTheKeyOffTheIndexAndKeepsTheValue() throws Exception {
        String group = b64("removal-" + UNIQUE.incrementAndGet());
        String kept = fresh("kept");
        String unindexed = fresh("unindexed");
        client.call("42," + kept + ",(B),0," + b64("京都の天気は晴れ") + "," + group + ",3,1");
        client.call("42," + unindexed + ",(B),0," + b64("奈良の天気は雨") + "," + group + ",3,1");
        assertEquals(Set.of(text(kept), text(unindexed)),
                decodedList(client.call("43," + b64("天気") + ",1," + group + ",3"), "43,true,"));
        assertEquals("44,true,", client.call("44," + unindexed + ",0," + group + ",3"));
        assertEquals(Set.of(text(kept)), decodedList(client.call("43," + b64("天気") + ",1," + group + ",3"),
                "43,true,"));
        assertEquals("43,false,", client.call("43," + b64("奈良") + ",1," + group + ",3"), "its value holds it");
        assertEquals("2,true," + b64("奈良の天気は雨"), client.call("2," + unindexed), "the value stays");
        assertEquals("44,true,", client.call("44," + fresh("nothing") + ",0," + group + ",3"), "no value: done");
        assertEquals(Set.of(text(kept)), decodedList(client.call("43," + b64("晴れ") + ",1," + group + ",3"),
                "43,true,"), "another group's removal leaves this one");
    }

    @Test
    void dictionaryCharactersAreCheckedAndAnswered() throws Exception {
        assertEquals("50,true,", client.call("50," + b64("okuyama") + "|" + b64("東京タワー")));
        assertEquals("50,true,", client.call("50," + b64("one")));
        assertEquals("50,true,", client.call("50,(B)"), "cleared");
        assertEquals("50,false,", client.call("50, "));
        assertEquals("50,false,NG:Invalid Base64", client.call("50,not base64!"));
        assertEquals("-1,false,ERROR,ArgumentException", client.call("50"));
    }

    @Test
    void pipelinedLinesAreAnsweredInOrder() throws Exception {
        String key = fresh("pipe");
        client.send("1," + key + ",(B),0," + b64("p") + "\n2," + key + "\r\n999\n13," + fresh("none") + ",0,"
                + b64("1") + "\n2," + key + "\n");
        assertEquals("1,true,OK", client.read());
        assertEquals("2,true," + b64("p"), client.read());
        assertEquals("999,VERSION okuyama-0.9.6.3,", client.read());
        assertEquals("13,false,NG", client.read());
        assertEquals("2,true," + b64("p"), client.read());
    }

    @Test
    void aMemcachedClientReadsWhatOkuyamaWroteAndTheOtherWayRound() throws Exception {
        String key = "cross-" + UNIQUE.incrementAndGet();
        assertEquals("1,true,OK", client.call("1," + b64(key) + ",(B),0," + b64("from okuyama ✓")));
        try (BinaryClient memcached = new BinaryClient(gateway.port())) {
            BinaryClient.Response read = memcached.get(key);
            assertEquals(0, read.status());
            assertEquals("from okuyama ✓", read.valueText());
            assertEquals(0, memcached.set(key + "-back", "from memcached", 0, 0).status());
            assertEquals(0, memcached.call(BinaryClient.INCREMENT, BinaryClient.arithmeticExtras(1, 41, 0),
                    BinaryClient.bytes(key + "-n"), BinaryClient.NONE, 0).status());
        }
        assertEquals("2,true," + b64("from memcached"), client.call("2," + b64(key + "-back")));
        assertEquals("13,true," + b64("42"), client.call("13," + b64(key + "-n") + ",0," + b64("1")));
    }

    @Test
    void malformedLinesGetTheReferenceRepliesAndTheConnectionStays() throws Exception {
        assertEquals("-1,error,Request Pattern Not Found", client.call("77," + b64("x")));
        assertEquals("-1,false,ERROR,Request Parameter Error", client.call("abc,def"));
        assertEquals("-1,false,ERROR,ArgumentException", client.call("1," + b64("k")));
        assertEquals("-1,false,ERROR,ArgumentException", client.call("22"));
        assertEquals("1,false,Key Length Error", client.call("1," + "A".repeat(468) + ",(B),0," + b64("v")));
        assertEquals("2,false,Key Length Error", client.call("2," + "A".repeat(500)));
        assertEquals("4,false,Tag Length Error", client.call("3," + "A".repeat(468) + ",true"));
        assertEquals("1,false,Value Length Error", client.call("1," + b64("big") + ",(B),0,"
                + b64("x".repeat(1_048_577))));
        assertEquals("2,false,", client.call("2,not*base64"));
        assertEquals("1,false,NG:Invalid Base64", client.call("1,not*base64,(B),0," + b64("v")));
        assertEquals("1,false,NG:Invalid Base64", client.call("1," + b64("k") + ",(B),0,%%%"));
        assertEquals("40,false,", client.call("40,%%%," + b64("k") + ",0"));
        assertEquals("13,false,NG", client.call("13," + b64("k") + ",0,%%%"));
        assertEquals("0,true,1572864", client.call("0"), "the connection is still usable");
    }

    @Test
    void aLineOverTheLimitIsAnsweredWithoutBufferingIt() throws Exception {
        // okuyama.max_line is 4 MiB by default: send 5 MiB of value in pieces.
        client.send("1," + b64("huge") + ",(B),0,");
        String chunk = "A".repeat(1 << 20);
        for (int i = 0; i < 5; i++) {
            client.send(chunk);
        }
        client.send("\n");
        assertEquals("1,false,Value Length Error", client.read());
        assertEquals("2,false,", client.call("2," + b64("huge")));
        assertTrue(gateway.gateway().metrics().refusals("okuyama", "max_line").count() >= 1, "counted");
    }

    @Test
    void getMultiValueRefusedOverLengthStillEndsWithEnd() throws Exception {
        // The reference client reads a getMultiValue reply up to END, however the request was refused.
        client.send("22," + b64("k1") + "," + "A".repeat(5 << 20) + "\n");
        assertEquals(List.of("22,false,Key Length Error", "END"), List.of(client.read(), client.read()));
        assertEquals(List.of("22,false,", "END"), client.callUntilEnd("22,%%%"));
        client.send("77," + "A".repeat(5 << 20) + "\n");
        assertEquals("-1,error,Request Pattern Not Found", client.read(), "an unknown method, however long");
        assertEquals("0,true,1572864", client.call("0"), "the connection is still usable");
    }

    @Test
    void aLongNGramLengthIsCutToThirtyTwoAndAValueWithTooManyGramsIsRefusedUnstored() throws Exception {
        String group = b64("long-grams-" + UNIQUE.incrementAndGet());
        String key = fresh("long-n");
        String text = "abcdefghijklmnopqrstuvwxyz".repeat(60);
        long start = System.nanoTime();
        assertEquals("42,true,OK", client.call("42," + key + ",(B),0," + b64(text) + "," + group + ","
                + text.length() + ",1"), "n as long as the value");
        assertTrue(System.nanoTime() - start < 5_000_000_000L, "answered without cutting every run of every length");
        assertEquals(Set.of(text(key)), decodedList(client.call("43," + b64("mnopq") + ",1," + group + ",1000"),
                "43,true,"), "a search's n is cut the same way");
        String huge = fresh("huge-index");
        String many = "0123456789".repeat(4_000);
        assertEquals("42,false,NG:the value has more than 1000000 n-grams of 1 to 32 characters to index",
                client.call("42," + huge + ",(B),0," + b64(many) + "," + group + ",32,1"));
        assertEquals("2,false,", client.call("2," + huge), "nothing stored");
    }

    @Test
    void closeRequestAndEmptyLineCloseTheConnection() throws Exception {
        client.send("(&imdst9999&)\n");
        assertTrue(client.closedByServer());
        try (OkuyamaClient other = new OkuyamaClient(gateway.okuyamaPort())) {
            other.send("\n");
            assertTrue(other.closedByServer());
        }
    }

    @Test
    void concurrentClientsLoseNoTagOrIndexEntry() throws Exception {
        String tag = fresh("shared-tag");
        String group = b64("concurrent-" + UNIQUE.incrementAndGet());
        int threads = 8;
        int perThread = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    try (OkuyamaClient own = new OkuyamaClient(gateway.okuyamaPort())) {
                        for (int i = 0; i < perThread; i++) {
                            String key = b64("c-" + group + "-" + thread + "-" + i);
                            assertEquals("42,true,OK", own.call("42," + key + "," + tag + ",0,"
                                    + b64("common words and item" + thread + "x" + i) + "," + group + ",3,1"));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(threads * perThread, decodedList(client.call("3," + tag + ",true"), "4,true,").size());
        assertEquals(threads * perThread,
                decodedList(client.call("43," + b64("common") + ",1," + group + ",3"), "43,true,").size());
    }

    @Test
    void listsKeepTheirOrderAndAnswerAsTheReference() throws Exception {
        String list = fresh("list");
        assertEquals("52,false,Missing List Struct", client.call("52," + list + "," + b64("x") + ",0"));
        assertEquals("53,false,Missing list struct", client.call("53," + list + "," + b64("x") + ",0"));
        assertEquals("57,false,", client.call("57," + list + ",0"));
        assertEquals("55,false,", client.call("55," + list + ",0"));
        assertEquals("51,true,OK", client.call("51," + list + ",0"));
        assertEquals("51,false,list already exists", client.call("51," + list + ",0"));
        assertEquals("55,false,", client.call("55," + list + ",0"), "an empty list pops nothing");
        assertEquals("53,true,OK", client.call("53," + list + "," + b64("b") + ",0"));
        assertEquals("53,true,OK", client.call("53," + list + "," + b64("c") + ",0"));
        assertEquals("52,true,OK", client.call("52," + list + "," + b64("a") + ",0"));
        assertEquals("53,true,OK", client.call("53," + list + ",(B),0"), "a blank item");
        assertEquals("57,true,4", client.call("57," + list + ",0"), "a plain number, not Base64");
        assertEquals("54,true," + b64("a"), client.call("54," + list + ",0,0"));
        assertEquals("54,true," + b64("a"), client.call("54," + list + ",-7,0"), "any index below 0 is the head");
        assertEquals("54,true," + b64("c"), client.call("54," + list + ",2,0"));
        assertEquals("54,true,(B)", client.call("54," + list + ",3,0"));
        assertEquals("54,false,", client.call("54," + list + ",4,0"));
        assertEquals("54,false,Please specify \"index\" numerically.", client.call("54," + list + ",x,0"));
        assertEquals("56,true,(B)", client.call("56," + list + ",0"));
        assertEquals("55,true," + b64("a"), client.call("55," + list + ",0"));
        assertEquals("56,true," + b64("c"), client.call("56," + list + ",0"));
        assertEquals("57,true,1", client.call("57," + list + ",0"));
        assertEquals("2,false,", client.call("2," + list), "a list is not a key of the same name");
        assertEquals("57,false,List name Length Error", client.call("57," + "A".repeat(468) + ",0"));
        assertEquals("52,false,listData Length Error", client.call("52," + list + "," + "A".repeat(2_170_552)
                + ",0"));
    }

    @Test
    void concurrentPushesAndPopsLoseAndRepeatNothing() throws Exception {
        String list = fresh("shared-list");
        assertEquals("51,true,OK", client.call("51," + list + ",0"));
        int clients = 4;
        int each = 50;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> pushes = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int writer = c;
                pushes.add(pool.submit(() -> {
                    try (OkuyamaClient own = new OkuyamaClient(gateway.okuyamaPort())) {
                        for (int i = 0; i < each; i++) {
                            String code = i % 2 == 0 ? "52" : "53";
                            assertEquals(code + ",true,OK", own.call(code + "," + list + "," + b64(writer + ":" + i)
                                    + ",0"));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> push : pushes) {
                push.get(60, TimeUnit.SECONDS);
            }
            assertEquals("57,true," + clients * each, client.call("57," + list + ",0"));
            List<Future<List<String>>> pops = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                pops.add(pool.submit(() -> {
                    List<String> popped = new ArrayList<>();
                    try (OkuyamaClient own = new OkuyamaClient(gateway.okuyamaPort())) {
                        for (String reply; (reply = own.call((popped.size() % 2 == 0 ? "55," : "56,") + list + ",0"))
                                .contains(",true,"); ) {
                            popped.add(reply.substring(reply.indexOf(",true,") + 6));
                        }
                    }
                    return popped;
                }));
            }
            Set<String> seen = new HashSet<>();
            for (Future<List<String>> pop : pops) {
                for (String item : pop.get(60, TimeUnit.SECONDS)) {
                    assertTrue(seen.add(item), "popped twice: " + item);
                }
            }
            assertEquals(clients * each, seen.size(), "every item popped once");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void sendMultiByteValueStoresEachPairAndSaysWhichWereStored() throws Exception {
        String a = fresh("multi-a");
        String b = fresh("multi-b");
        assertEquals("111,true," + a + ":true:#:" + b + ":true:#:%%%:false",
                client.call("111,0," + a + ":#:" + b64("one") + "," + b + ":#:" + b64("two") + ",%%%:#:"
                        + b64("three")));
        assertEquals("2,true," + b64("one"), client.call("2," + a));
        assertEquals("2,true," + b64("two"), client.call("2," + b));
        assertEquals("111,true,", client.call("111,0"));
        assertEquals("-1,false,ERROR,ArgumentException", client.call("111,0," + a + b64("x")));
    }

    @Test
    void readByteValueAnswersTheCompressedBase64OfTheValue() throws Exception {
        String key = fresh("bytes");
        assertEquals("2,false,", client.call("201," + key), "a miss is the plain get's");
        assertEquals("1,true,OK", client.call("1," + key + ",(B),0," + b64("byte value ✓")));
        String reply = client.call("201," + key);
        assertTrue(reply.startsWith("201,true,"), reply);
        String[] parts = reply.split(",", 4);
        assertEquals(9, parts[2].length(), "nine digits of length");
        assertEquals(parts[3].length(), Integer.parseInt(parts[2]));
        Inflater inflater = new Inflater();
        inflater.setInput(Base64.getDecoder().decode(parts[3]));
        byte[] inflated = new byte[1024];
        int length = inflater.inflate(inflated);
        inflater.end();
        assertEquals(b64("byte value ✓"), new String(inflated, 0, length, StandardCharsets.US_ASCII));
    }

    @Test
    void tagKeysResultPagingFindsEveryKeyOfATag() throws Exception {
        String tag = fresh("paged-tag");
        assertEquals("45,false,", client.call("45," + tag));
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            String key = fresh("paged-" + i);
            keys.add(key);
            assertEquals("1,true,OK", client.call("1," + key + "," + tag + ",0," + b64("v" + i)));
        }
        assertEquals("45,true,0", client.call("45," + tag));
        String bucket = client.call("46," + tag + ",0");
        assertTrue(bucket.startsWith("46,true,"), bucket);
        assertEquals(keys, new HashSet<>(List.of(bucket.substring(8).split(":"))));
        assertEquals("46,false,", client.call("46," + tag + ",500000"));
        assertEquals("46,error,MasterNode - Exception", client.call("46," + tag + ",x"));
    }

    @Test
    void transactionsAnswerAsTheReferenceWithoutItsTransactionMode() throws Exception {
        assertEquals("37,false,No Transaction Mode", client.call("37,"));
        String key = fresh("locked");
        assertEquals("30,false,", client.call("30," + key + ",12345,10,0"));
        assertEquals("31,false,", client.call("31," + key + ",12345"));
        assertEquals("1,true,OK", client.call("1," + key + ",(B),0," + b64("free")), "nothing is locked");
    }
}
