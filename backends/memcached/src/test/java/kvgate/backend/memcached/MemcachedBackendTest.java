package kvgate.backend.memcached;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemcachedBackendTest {
    private static List<Integer> fenced(int... opcodes) {
        List<ServerRequest> batch = new ArrayList<>();
        for (int opcode : opcodes) {
            batch.add(new ServerRequest(opcode, null, new byte[] {'k'}, null, 0, null));
        }
        MemcachedBackend.fence(batch);
        return batch.stream().map(request -> request.opcode).toList();
    }

    @Test
    void aBatchEndsInARequestThatIsAnsweredWhateverHappensAndNoNoopIsAdded() {
        int getq = ServerRequest.GETQ;
        assertEquals(List.of(getq, getq, ServerRequest.GET), fenced(getq, getq, getq));
        assertEquals(List.of(ServerRequest.GET), fenced(getq));
        assertEquals(List.of(getq, ServerRequest.SET), fenced(getq, ServerRequest.SET));
        assertEquals(List.of(ServerRequest.DELETE, getq, ServerRequest.GET), fenced(ServerRequest.DELETE, getq, getq));
    }
}
