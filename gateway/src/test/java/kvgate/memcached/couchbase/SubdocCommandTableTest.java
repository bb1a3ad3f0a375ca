package kvgate.memcached.couchbase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import kvgate.memcached.binary.Opcode;
import org.junit.jupiter.api.Test;

/**
 * The binary codec's opcode table and the sub-document command table each say which sub-document commands change the
 * document (the codec to allow durability and Preserve TTL on them, this package to run them): they must agree.
 */
class SubdocCommandTableTest {

    @Test
    void everySubdocumentOpcodeMutatesExactlyWhenItsCommandDoes() {
        int subdocumentOpcodes = 0;
        for (Opcode opcode : Opcode.values()) {
            if (!opcode.subdocument() || opcode == Opcode.SUBDOC_MULTI_LOOKUP
                    || opcode == Opcode.SUBDOC_MULTI_MUTATION) {
                continue;
            }
            subdocumentOpcodes++;
            SubdocRequest.Command command = SubdocRequest.Command.of(opcode.code());
            assertNotNull(command, opcode + " has no sub-document command");
            assertEquals(command.mutation, opcode.subdocumentMutation(), opcode.toString());
        }
        assertEquals(12, subdocumentOpcodes);
        assertTrue(Opcode.SUBDOC_MULTI_MUTATION.subdocumentMutation());
        assertFalse(Opcode.SUBDOC_MULTI_LOOKUP.subdocumentMutation());
    }
}
