package kvgate.memcached;

import kvgate.testing.TestGateway;

/** Leases on the local store. */
class MetaLeasesOnLocalStoreTest extends MetaLeasesSuite {
    @Override
    TestGateway start() throws Exception {
        return TestGateway.start();
    }
}
