package kvgate.collections;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import kvgate.spi.Namespace;

/**
 * Reads and validates a manifest with every rule of both generations of the collections documents: the required
 * keys and their types, hex uids, name rules, reserved ids, uniqueness, the default scope, and the limits. Both
 * {@code maxTTL} (newer) and {@code max_ttl} (older) are accepted. Keys the format does not define are ignored, as
 * servers do, so manifests carrying newer fields still apply.
 */
public final class ManifestParser {
    /** Ids below this are reserved, except 0 which names the default scope and collection. */
    public static final long FIRST_USER_ID = 8;
    /** The largest maxTTL, as for a bucket's TTL: a signed 32-bit count of seconds. */
    public static final long MAX_TTL_SECONDS = Integer.MAX_VALUE;

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** Where the namespace of each collection of the manifest being read comes from. */
    @FunctionalInterface
    public interface Namespaces {
        Namespace of(long collectionId, long manifestUid);
    }

    private ManifestParser() {
    }

    /** Parses and validates {@code json} as the manifest of {@code bucket}. */
    public static CollectionsManifest parse(String bucket, byte[] json, ManifestLimits limits, Namespaces namespaces)
            throws ManifestRejected {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JacksonException e) {
            throw invalid("invalid JSON: " + e.getOriginalMessage());
        } catch (IOException | RuntimeException e) {
            throw invalid("invalid JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw invalid("the manifest must be a JSON object");
        }
        long uid = hex(root, "uid", "the manifest", 16);
        JsonNode scopeNodes = array(root, "scopes", "the manifest", true);
        if (scopeNodes.size() > limits.maxScopes()) {
            throw invalid(scopeNodes.size() + " scopes exceed the limit of " + limits.maxScopes());
        }
        List<CollectionsManifest.Scope> scopes = new ArrayList<>();
        Set<Long> scopeIds = new HashSet<>();
        Set<String> scopeNames = new HashSet<>();
        Set<Long> collectionIds = new HashSet<>();
        int collectionCount = 0;
        boolean defaultScope = false;
        for (JsonNode scopeNode : scopeNodes) {
            if (!scopeNode.isObject()) {
                throw invalid("a scope entry must be an object");
            }
            String scopeName = name(scopeNode, "a scope");
            long scopeId = hex(scopeNode, "uid", "scope " + scopeName, 8);
            checkId(scopeId, scopeName, "scope");
            if (!scopeIds.add(scopeId)) {
                throw invalid("scope id " + Long.toHexString(scopeId) + " is not unique");
            }
            if (!scopeNames.add(scopeName)) {
                throw invalid("scope name " + scopeName + " is not unique");
            }
            defaultScope |= scopeId == 0;
            List<CollectionsManifest.Collection> collections = new ArrayList<>();
            Set<String> collectionNames = new HashSet<>();
            JsonNode collectionNodes = array(scopeNode, "collections", "scope " + scopeName, false);
            for (JsonNode node : collectionNodes == null ? List.<JsonNode>of() : collectionNodes) {
                if (!node.isObject()) {
                    throw invalid("a collection entry must be an object");
                }
                String name = name(node, "a collection");
                long id = hex(node, "uid", "collection " + name, 8);
                checkId(id, name, "collection");
                if (id == 0 && scopeId != 0) {
                    throw invalid("the default collection belongs to the default scope, not " + scopeName);
                }
                if (!collectionIds.add(id)) {
                    throw invalid("collection id " + Long.toHexString(id) + " is not unique");
                }
                if (!collectionNames.add(name)) {
                    throw invalid("collection name " + name + " is not unique in scope " + scopeName);
                }
                if (++collectionCount > limits.maxCollections()) {
                    throw invalid("more collections than the limit of " + limits.maxCollections());
                }
                collections.add(new CollectionsManifest.Collection(id, name, scopeId, maxTtl(node, name),
                        namespaces.of(id, uid)));
            }
            scopes.add(new CollectionsManifest.Scope(scopeId, scopeName, collections));
        }
        if (!defaultScope) {
            throw invalid("the default scope is missing");
        }
        return new CollectionsManifest(bucket, uid, new String(json, StandardCharsets.UTF_8), scopes);
    }

    private static String name(JsonNode node, String what) throws ManifestRejected {
        JsonNode name = node.get("name");
        if (name == null) {
            throw invalid(what + " has no name");
        }
        if (!name.isTextual()) {
            throw invalid("the name of " + what + " must be a string");
        }
        String problem = CollectionName.problem(name.textValue());
        if (problem != null) {
            throw invalid(problem);
        }
        return name.textValue();
    }

    /** Id 0 is the default scope or collection and nothing else; 1 to 7 are reserved. */
    private static void checkId(long id, String name, String what) throws ManifestRejected {
        if (id > 0 && id < FIRST_USER_ID) {
            throw invalid(what + " " + name + ": ids 1 to 7 are reserved");
        }
        if ((id == 0) != name.equals(CollectionName.DEFAULT)) {
            throw invalid(what + " " + name + " with id " + Long.toHexString(id) + ": id 0 is the "
                    + CollectionName.DEFAULT + " " + what + " and only it");
        }
    }

    private static long maxTtl(JsonNode collection, String name) throws ManifestRejected {
        JsonNode newer = collection.get("maxTTL");
        JsonNode older = collection.get("max_ttl");
        long newerValue = newer == null ? -1 : ttl(newer, "maxTTL", name);
        long olderValue = older == null ? -1 : ttl(older, "max_ttl", name);
        if (newerValue >= 0 && olderValue >= 0 && newerValue != olderValue) {
            throw invalid("collection " + name + " has maxTTL " + newerValue + " and max_ttl " + olderValue);
        }
        return Math.max(0, Math.max(newerValue, olderValue));
    }

    private static long ttl(JsonNode value, String key, String name) throws ManifestRejected {
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0
                || value.longValue() > MAX_TTL_SECONDS) {
            throw invalid(key + " of collection " + name + " must be an integer from 0 to " + MAX_TTL_SECONDS);
        }
        return value.longValue();
    }

    private static JsonNode array(JsonNode node, String key, String what, boolean required) throws ManifestRejected {
        JsonNode value = node.get(key);
        if (value == null) {
            if (required) {
                throw invalid(what + " has no " + key);
            }
            return null;
        }
        if (!value.isArray()) {
            throw invalid(key + " of " + what + " must be an array");
        }
        return value;
    }

    /** A uid: a string of 1 to {@code digits} hex digits, no {@code 0x}. */
    private static long hex(JsonNode node, String key, String what, int digits) throws ManifestRejected {
        JsonNode value = node.get(key);
        if (value == null) {
            throw invalid(what + " has no " + key);
        }
        if (!value.isTextual()) {
            throw invalid(key + " of " + what + " must be a string of hex digits");
        }
        String text = value.textValue();
        if (text.isEmpty() || text.length() > digits) {
            throw invalid(key + " of " + what + " must be 1 to " + digits + " hex digits: '" + text + "'");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c > 'f' || Character.digit(c, 16) < 0) { // ASCII only: Character.digit also takes other scripts
                throw invalid(key + " of " + what + " is not hex: '" + text + "'");
            }
        }
        return Long.parseUnsignedLong(text, 16);
    }

    private static ManifestRejected invalid(String message) {
        return new ManifestRejected(ManifestRejected.Reason.INVALID, message);
    }
}
