"""pymemcache against a memcached text-protocol server: storage, CAS, multi-get, arithmetic, expiry and errors.

Prints OK when every check holds; otherwise the first check that failed, and exits with 1.
Usage: pymemcache_client.py <host> <port> <key prefix>
"""
import sys
import time

from pymemcache.client.base import Client
from pymemcache.exceptions import MemcacheClientError, MemcacheServerError, MemcacheIllegalInputError

host, port, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3]
client = Client((host, port), connect_timeout=5, timeout=5, default_noreply=False)


def key(name):
    return prefix + name


def check(condition, what):
    if not condition:
        print("FAILED: " + what)
        sys.exit(1)


# Storage commands and their replies.
check(client.set(key("a"), b"alpha", expire=0) is True, "set")
check(client.get(key("a")) == b"alpha", "get after set")
check(client.add(key("a"), b"other") is False, "add of an existing key is not stored")
check(client.add(key("b"), b"beta") is True, "add of a new key")
check(client.replace(key("missing"), b"x") is False, "replace of a missing key is not stored")
check(client.replace(key("b"), b"BETA") is True, "replace")
check(client.append(key("b"), b"-end") is True, "append")
check(client.prepend(key("b"), b"start-") is True, "prepend")
check(client.get(key("b")) == b"start-BETA-end", "append and prepend")
check(client.append(key("missing"), b"x") is False, "append to a missing key")

# CAS.
value, cas = client.gets(key("a"))
check(value == b"alpha" and cas is not None, "gets returns a CAS")
check(client.cas(key("a"), b"changed", cas) is True, "cas with the current unique")
check(client.cas(key("a"), b"again", cas) is False, "cas with a stale unique")
check(client.cas(key("never"), b"x", cas) is None, "cas of a missing key")
check(client.get(key("a")) == b"changed", "the cas took effect once")

# Multi-get: hits only, whatever the order.
many = client.get_many([key("a"), key("nope"), key("b")])
check(many == {key("a"): b"changed", key("b"): b"start-BETA-end"}, "get_many: " + repr(many))
with_cas = client.gets_many([key("a"), key("b")])
check(with_cas[key("a")][0] == b"changed" and with_cas[key("a")][1] is not None, "gets_many: " + repr(with_cas))

# Arithmetic.
check(client.incr(key("n"), 1) is None, "incr of a missing key")
client.set(key("n"), b"10")
check(client.incr(key("n"), 5) == 15, "incr")
check(client.decr(key("n"), 20) == 0, "decr stops at zero")
check(client.incr(key("n"), 18446744073709551615) == 18446744073709551615, "incr to 2^64-1")
check(client.incr(key("n"), 1) == 0, "incr wraps")
try:
    client.set(key("text"), b"abc")
    client.incr(key("text"), 1)
    check(False, "incr of a non-number raises")
except MemcacheClientError as error:
    check("non-numeric" in str(error), "the non-numeric error: " + str(error))

# Delete and touch.
check(client.delete(key("b")) is True, "delete")
check(client.delete(key("b")) is False, "delete of a missing key")
check(client.touch(key("a"), 100) is True, "touch")
check(client.touch(key("gone"), 100) is False, "touch of a missing key")

# Expiry.
client.set(key("short"), b"soon", expire=1)
check(client.get(key("short")) == b"soon", "before expiry")
time.sleep(2.2)
check(client.get(key("short")) is None, "after expiry")

# noreply: the next request still lines up with its reply.
client.set(key("quiet"), b"q", noreply=True)
check(client.get(key("quiet")) == b"q", "after a noreply set")

# Errors: a key memcached refuses, and a value over the item size limit.
try:
    client.get("k" * 251)
    check(False, "a 251-byte key is refused")
except MemcacheIllegalInputError:
    pass
try:
    client.set(key("big"), b"v" * (2 * 1024 * 1024))
    check(False, "a value over the limit is refused")
except MemcacheServerError as error:
    check("too large" in str(error), "the too-large error: " + str(error))
check(client.version().startswith(b"1.6"), "version")
client.close()
print("OK")
