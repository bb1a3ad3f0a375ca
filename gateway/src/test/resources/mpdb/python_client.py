"""An MPDB client written with Python's msgpack (an implementation independent of the gateway's), as the
protocol's own sample client is. Usage: python_client.py HOST PORT. Prints OK, or what went wrong, and exits."""
import socket
import sys

import msgpack

host, port = sys.argv[1], int(sys.argv[2])
family = socket.AF_INET6 if ":" in host else socket.AF_INET
sock = socket.socket(family, socket.SOCK_DGRAM)
sock.settimeout(5)
node = 0xBEEF


def call(oper, echo, **fields):
    request = {"oper": oper, "nodeid": node, "echo": echo}
    request.update(fields)
    sock.sendto(msgpack.packb(request, use_bin_type=True), (host, port))
    data, _ = sock.recvfrom(65536)
    reply = msgpack.unpackb(data, raw=False, strict_map_key=False)
    assert reply["oper"] == "RESPONSE", reply
    assert reply["echo"] == echo, reply
    assert reply["nodeid"] == node, reply
    return reply


values = {"py.text": "snow ☃", "py.small": 7, "py.negative": -40000, "py.big": 2**64 - 1, "py.min": -2**63}
reply = call("INSERT", 1, data=values)
assert reply["error"] == "", reply
reply = call("GET", 2, keys=list(values) + ["py.absent", "plain"])
assert reply["error"] == "", reply
expected = dict(values, **{"py.absent": None, "global.plain": None})
assert reply["result"] == expected, reply["result"]

reply = call("PERSIST", 3, data={"a.b": "private"})
assert reply["error"] == "", reply
reply = call("GETPERSIST", 4, keys=["a.b"])
assert reply["result"] == {"a.b": "private"}, reply

reply = call("GETBUCKET", 5, collection="py")
assert reply["result"] == values, reply["result"]

reply = call("INSERT", 6, data={"py.float": 1.5})
assert "py.float" in reply["error"] and reply["result"] is None, reply
print("OK")
