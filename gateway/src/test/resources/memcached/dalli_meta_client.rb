# Dalli (Ruby) in its meta-protocol mode against a memcached server: storage, CAS, multi-get, arithmetic, expiry,
# quiet mode, base64 keys and errors, all over mg, ms, md, ma and mn.
#
# Prints OK when every check holds; otherwise the first check that failed, and exits with 1.
# Usage: ruby dalli_meta_client.rb <host:port> <key prefix>
require 'dalli'

# Dalli before 3.2 ignores the protocol option and speaks binary, which would leave the meta commands untested.
unless Gem::Version.new(Dalli::VERSION) >= Gem::Version.new('3.2')
  puts "FAILED: Dalli #{Dalli::VERSION} has no meta protocol; 3.2 or later is needed"
  exit 1
end

server, = ARGV
# value_max_bytes above the server's item size limit, so that an over-long value reaches the server and its refusal
# comes back over the wire instead of being caught by the client.
client = Dalli::Client.new(server, protocol: :meta, socket_timeout: 5, value_max_bytes: 4 * 1024 * 1024,
                                   compress: false)
raw = { raw: true }

def key(name)
  ARGV[1] + name
end

def check(condition, what)
  return if condition

  puts "FAILED: #{what}"
  exit 1
end

# Dalli takes the last word of the version line: memcached's release number, or the gateway's own version after it.
version = client.version.values.first
check(version.is_a?(String) && !version.empty?, "version: #{version.inspect}")

# Storage commands (ms in its modes), and a serialized value that comes back through its client flags.
check(client.set(key('a'), 'alpha', 0, raw).is_a?(Integer), 'set answers with the CAS')
check(client.get(key('a'), raw) == 'alpha', 'get after set')
check(client.add(key('a'), 'other', 0, raw) == false, 'add of an existing key is not stored')
check(client.add(key('b'), 'beta', 0, raw).is_a?(Integer), 'add of a new key')
check(client.replace(key('missing'), 'x', 0, raw) == false, 'replace of a missing key is not stored')
check(client.replace(key('b'), 'BETA', 0, raw).is_a?(Integer), 'replace')
check(client.append(key('b'), '-end') == true, 'append')
check(client.prepend(key('b'), 'start-') == true, 'prepend')
check(client.get(key('b'), raw) == 'start-BETA-end', 'append and prepend')
check(client.append(key('missing'), 'x') == false, 'append to a missing key')
object = { 'list' => [1, 2, 3], 'name' => 'gateway' }
client.set(key('object'), object)
check(client.get(key('object')) == object, 'a marshalled value and its flags')

# CAS: mg with c, ms with C.
value, cas = client.get_cas(key('a'))
check(value == 'alpha' && cas.is_a?(Integer) && cas.positive?, "get_cas: #{[value, cas].inspect}")
check(client.set_cas(key('a'), 'changed', cas, 0, raw).is_a?(Integer), 'set_cas with the current CAS')
check(client.set_cas(key('a'), 'again', cas, 0, raw) == false, 'set_cas with a stale CAS')
check(client.get(key('a'), raw) == 'changed', 'the set_cas took effect once')
check(client.cas(key('never')) { |v| v + 'x' }.nil?, 'cas of a missing key')
check(client.cas(key('a'), 0, raw) { |v| v.upcase }.is_a?(Integer), 'cas block')
check(client.get(key('a'), raw) == 'CHANGED', 'after the cas block')
_, cas = client.get_cas(key('b'))
check(client.delete_cas(key('b'), cas + 1) == false, 'delete_cas with a wrong CAS')
check(client.get(key('b'), raw) == 'start-BETA-end', 'a refused delete_cas deletes nothing')

# Multi-get: quiet mg requests ended by mn, hits only.
many = client.get_multi(key('a'), key('nope'), key('b'))
check(many == { key('a') => 'CHANGED', key('b') => 'start-BETA-end' }, "get_multi: #{many.inspect}")
with_cas = client.get_multi_cas(key('a'), key('nope'))
check(with_cas.keys == [key('a')] && with_cas[key('a')][1].is_a?(Integer), "get_multi_cas: #{with_cas.inspect}")

# Base64 keys: keys with whitespace or beyond ASCII go as b keys, and come back decoded from a multi-get.
spaced = key('with space é')
client.set(spaced, 'b64', 0, raw)
check(client.get(spaced, raw) == 'b64', 'a base64 key')
check(client.get_multi(spaced, key('a'))[spaced] == 'b64', 'a base64 key in a multi-get')

# Arithmetic: ma with N, J and D; a missing key without a default.
check(client.incr(key('n'), 1).nil?, 'incr of a missing key without a default')
check(client.incr(key('n'), 1, 0, 10) == 10, 'incr of a missing key creates it with the default')
check(client.incr(key('n'), 5) == 15, 'incr')
check(client.decr(key('n'), 20) == 0, 'decr stops at zero')
check(client.incr(key('n'), 18_446_744_073_709_551_615) == 18_446_744_073_709_551_615, 'incr to 2^64-1')
check(client.incr(key('n'), 1) == 0, 'incr wraps')
check(client.get(key('n'), raw).strip == '0', 'the counter reads as text')
client.set(key('text'), 'abc', 0, raw)
begin
  client.incr(key('text'), 1)
  check(false, 'incr of a non-number raises')
rescue Dalli::DalliError => e
  check(e.message.include?('CLIENT_ERROR'), "the non-numeric error: #{e.message}")
end

# Delete, touch and gat (mg with T).
check(client.delete(key('b')) == true, 'delete')
check(client.delete(key('b')) == false, 'delete of a missing key')
check(client.touch(key('a'), 100) == true, 'touch')
check(client.touch(key('gone'), 100).nil?, 'touch of a missing key')
check(client.gat(key('a'), 100) == 'CHANGED', 'gat')

# Expiry.
client.set(key('short'), 'soon', 1, raw)
check(client.get(key('short'), raw) == 'soon', 'before expiry')
sleep 2.2
check(client.get(key('short'), raw).nil?, 'after expiry')

# Quiet mode: writes with q, ended by mn; a failure is not reported, and the next request still lines up.
client.quiet do
  client.set(key('q1'), 'one', 0, raw)
  client.add(key('q1'), 'refused', 0, raw)
  client.set(key('q2'), 'two', 0, raw)
  client.delete(key('nothing-here'))
end
check(client.get_multi(key('q1'), key('q2')) == { key('q1') => 'one', key('q2') => 'two' }, 'after quiet')

# fetch: a miss computes and stores, a hit does not.
check(client.fetch(key('f'), 0, raw) { 'made' } == 'made', 'fetch on a miss')
check(client.fetch(key('f'), 0, raw) { 'again' } == 'made', 'fetch on a hit')

# Errors: a value over the item size limit, refused by the server.
begin
  client.set(key('big'), 'v' * (2 * 1024 * 1024), 0, raw)
  check(false, 'a value over the limit is refused')
rescue Dalli::DalliError => e
  check(e.message.include?('SERVER_ERROR'), "the too-large error: #{e.message}")
end
check(client.get(key('a'), raw) == 'CHANGED', 'the connection serves requests after the refusal')

# flush_all, then nothing is left.
check(client.flush.all?, 'flush')
check(client.get(key('a'), raw).nil?, 'after flush')
client.close
puts 'OK'
