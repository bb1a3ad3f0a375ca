package kvgate.backend.memcached;

/** One reply of a memcached server in the binary protocol, its parts copied out of the network buffer. */
record ServerReply(int opcode, int status, int opaque, long cas, byte[] extras, byte[] key, byte[] value) {
    static final int SUCCESS = 0x0000;
    static final int KEY_NOT_FOUND = 0x0001;
    static final int KEY_EXISTS = 0x0002;
    static final int TOO_LARGE = 0x0003;
    static final int INVALID_ARGUMENTS = 0x0004;
    static final int NOT_STORED = 0x0005;
    static final int NON_NUMERIC = 0x0006;
}
