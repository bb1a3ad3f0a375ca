package kvgate.memcached.couchbase;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;
import kvgate.collections.BucketManifests;
import kvgate.collections.CollectionName;
import kvgate.collections.CollectionsManifest;
import kvgate.collections.ManifestRejected;
import kvgate.memcached.binary.BinaryRequest;
import kvgate.memcached.binary.BinaryResponse;
import kvgate.memcached.binary.BinaryStatus;
import kvgate.net.Translation;

/**
 * Couchbase's collections commands on a connection whose bucket has a manifest: set and get the manifest, look up a
 * collection's or a scope's id, and the reply that names an unknown collection or scope with the manifest that decided
 * it.
 */
public final class CollectionsCommands {
    private static final ObjectMapper JSON = new ObjectMapper();

    private CollectionsCommands() {
    }

    /**
     * Set Collections Manifest of {@code bucket}: the reply once the manifest is in force in the backend, or why it is
     * refused, in Couchbase's words and with its extended error.
     */
    public static CompletionStage<Translation.Answer<BinaryResponse>> setManifest(BinaryRequest request,
                                                                                   BucketManifests manifests,
                                                                                   String bucket) {
        return manifests.set(bucket, request.value()).handle((applied, failure) -> {
            if (failure == null) {
                return Translation.answer(BinaryResponse.success(request));
            }
            ManifestRejected rejected = BucketManifests.rejection(failure);
            if (rejected == null) {
                return Translation.answer(BinaryResponse.error(request.opcode(), request.opaque(),
                        BinaryStatus.INTERNAL_ERROR));
            }
            BinaryStatus status = switch (rejected.reason()) {
                case INVALID -> BinaryStatus.INVALID_ARGUMENTS;
                case UID_BEHIND -> BinaryStatus.OUT_OF_RANGE;
                case CANNOT_APPLY -> BinaryStatus.CANNOT_APPLY_MANIFEST;
                case CONCURRENT_UPDATE, STORE_FAILED -> BinaryStatus.TEMPORARY_FAILURE;
            };
            ObjectNode body = JSON.createObjectNode();
            body.putObject("error").put("context", rejected.getMessage());
            return Translation.answer(BinaryResponse.error(request.opcode(), request.opaque(), status,
                    body.toString()));
        });
    }

    /** Get Collections Manifest: the manifest in force, as JSON. */
    public static BinaryResponse manifest(BinaryRequest request, CollectionsManifest manifest) {
        return BinaryResponse.value(request, BinaryResponse.EMPTY, manifest.json().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Get Collection ID and Get Scope ID. The path comes in the key or the value; an empty scope or collection name
     * means {@code _default}; a scope path may carry a {@code .collection} part, which is ignored.
     */
    public static BinaryResponse lookUp(BinaryRequest request, boolean collection, CollectionsManifest manifest) {
        if (request.key().length > 0 && request.value().length > 0) {
            return invalid(request);
        }
        String path = new String(request.key().length > 0 ? request.key() : request.value(),
                StandardCharsets.ISO_8859_1);
        int dot = path.indexOf('.');
        boolean oneDot = dot >= 0 && path.indexOf('.', dot + 1) < 0;
        if (collection ? !oneDot : dot >= 0 && !oneDot) {
            return invalid(request);
        }
        String scopeName = orDefault(dot >= 0 ? path.substring(0, dot) : path);
        String collectionName = orDefault(dot >= 0 ? path.substring(dot + 1) : "");
        if (CollectionName.problem(scopeName) != null
                || collection && CollectionName.problem(collectionName) != null) {
            return invalid(request);
        }
        CollectionsManifest.Scope scope = manifest.scope(scopeName);
        if (scope == null) {
            return unknown(request.opcode(), request.opaque(), BinaryStatus.UNKNOWN_SCOPE, manifest);
        }
        long id = scope.id();
        if (collection) {
            CollectionsManifest.Collection found = scope.collection(collectionName);
            if (found == null) {
                return unknown(request.opcode(), request.opaque(), BinaryStatus.UNKNOWN_COLLECTION, manifest);
            }
            id = found.id();
        }
        byte[] extras = ByteBuffer.allocate(12).putLong(manifest.uid()).putInt((int) id).array();
        return new BinaryResponse(request.opcode(), 0, request.opaque(), 0, extras, BinaryResponse.EMPTY,
                BinaryResponse.EMPTY);
    }

    /**
     * An unknown collection or scope, with the uid of the manifest that decided it in the form of both generations:
     * {@code manifest_uid} (newer) and {@code error.context} (older).
     */
    public static BinaryResponse unknown(int opcode, int opaque, BinaryStatus status, CollectionsManifest manifest) {
        ObjectNode body = JSON.createObjectNode();
        body.putObject("error").put("context", manifest.uidHex());
        body.put("manifest_uid", manifest.uidHex());
        return BinaryResponse.error(opcode, opaque, status, body.toString());
    }

    private static BinaryResponse invalid(BinaryRequest request) {
        return BinaryResponse.error(request.opcode(), request.opaque(), BinaryStatus.INVALID_ARGUMENTS);
    }

    private static String orDefault(String name) {
        return name.isEmpty() ? CollectionName.DEFAULT : name;
    }
}
