package kvgate.memcached.couchbase;

import org.junit.jupiter.api.BeforeAll;

/** The Couchbase SDK suite on the local store. */
class CouchbaseSdkOnLocalStoreTest extends CouchbaseSdkSuite {
    @BeforeAll
    static void start() throws Exception {
        start(null, true);
    }
}
