#!/usr/bin/perl
# Cache::Memcached against a memcached text-protocol server: storage, CAS-less updates, multi-get, arithmetic,
# expiry and misses. Prints OK when every check holds; otherwise the first check that failed, and exits with 1.
# Usage: cache_memcached_client.pl <host:port> <key prefix>
use strict;
use warnings;
use Cache::Memcached;

my ($server, $prefix) = @ARGV;
my $memcached = Cache::Memcached->new({servers => [$server], connect_timeout => 5, select_timeout => 5});

sub check {
    my ($condition, $what) = @_;
    unless ($condition) {
        print "FAILED: $what\n";
        exit 1;
    }
}

sub key { return $prefix . $_[0]; }

check($memcached->set(key('a'), 'alpha'), 'set');
check(($memcached->get(key('a')) // '') eq 'alpha', 'get after set');
check(!$memcached->add(key('a'), 'other'), 'add of an existing key');
check($memcached->add(key('b'), 'beta'), 'add of a new key');
check(!$memcached->replace(key('missing'), 'x'), 'replace of a missing key');
check($memcached->replace(key('b'), 'BETA'), 'replace');
check($memcached->append(key('b'), '-end'), 'append');
check($memcached->prepend(key('b'), 'start-'), 'prepend');
check(($memcached->get(key('b')) // '') eq 'start-BETA-end', 'append and prepend');

# A Perl structure is stored frozen, with a flag that says so, and comes back whole.
check($memcached->set(key('struct'), {list => [1, 2, 3], name => 'x'}), 'set of a structure');
my $struct = $memcached->get(key('struct'));
check(ref $struct eq 'HASH' && $struct->{name} eq 'x' && scalar @{$struct->{list}} == 3, 'structure read back');

my $many = $memcached->get_multi(key('a'), key('nope'), key('b'));
check(scalar(keys %$many) == 2 && $many->{key('a')} eq 'alpha' && $many->{key('b')} eq 'start-BETA-end',
      'get_multi');

check(!defined $memcached->incr(key('n'), 1), 'incr of a missing key');
$memcached->set(key('n'), 10);
check($memcached->incr(key('n'), 5) == 15, 'incr');
check($memcached->decr(key('n'), 20) == 0, 'decr stops at zero');

check($memcached->delete(key('b')), 'delete');
check(!$memcached->delete(key('b')), 'delete of a missing key');

$memcached->set(key('short'), 'soon', 1);
check(($memcached->get(key('short')) // '') eq 'soon', 'before expiry');
sleep 3;
check(!defined $memcached->get(key('short')), 'after expiry');

my $stats = $memcached->stats(['misc']);
check(defined $stats->{hosts}{$server}{misc}{cmd_get}, 'stats misc has cmd_get');
print "OK\n";
