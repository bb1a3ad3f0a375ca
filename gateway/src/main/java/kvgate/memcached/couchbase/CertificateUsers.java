package kvgate.memcached.couchbase;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * Which user a client certificate names, as a Couchbase server maps one (its {@code client_cert_auth} path, prefix
 * and delimiters): the values of one certificate field are tried in order, the first that starts with
 * {@code prefix} is taken without it, cut at the first of {@code delimiters}. A connection whose verified
 * certificate names a user of the password file is authenticated as that user without SASL, as Couchbase SDKs
 * expect when they log in with a certificate.
 *
 * @param field {@code subject.cn}, {@code san.uri}, {@code san.email} or {@code san.dnsname}
 * @param prefix what the value must start with, taken off (empty: any value)
 * @param delimiters characters that end the user name (empty: the whole rest)
 */
public record CertificateUsers(String field, String prefix, String delimiters) {
    /** The fields a user may be taken from, as Couchbase names them. */
    public static final List<String> FIELDS = List.of("subject.cn", "san.uri", "san.email", "san.dnsname");

    /** The subject alternative name types of RFC 5280 that the {@code san.*} fields read. */
    private static final int SAN_EMAIL = 1;
    private static final int SAN_DNS = 2;
    private static final int SAN_URI = 6;

    public CertificateUsers {
        if (!FIELDS.contains(field)) {
            throw new IllegalArgumentException("no certificate field '" + field + "': one of " + FIELDS);
        }
    }

    /** What a connection's certificate makes of its login. */
    public sealed interface Login {
    }

    /** No certificate was presented: the client authenticates with SASL, if at all. */
    public record NoCertificate() implements Login {
    }

    /** The certificate names a user of the password file: the connection is authenticated as them. */
    public record User(String name) implements Login {
    }

    /** The certificate names no user, or one the password file lacks: the connection is refused. */
    public record Refused(String why) implements Login {
    }

    /** The login {@code certificate} (null when none was presented) gives among {@code users}. */
    public Login login(X509Certificate certificate, SaslUsers users) {
        if (certificate == null) {
            return new NoCertificate();
        }
        String subject = certificate.getSubjectX500Principal().getName();
        String user = user(certificate);
        if (user == null) {
            return new Refused("its certificate (" + subject + ") has no " + field
                    + (prefix.isEmpty() ? "" : " starting with '" + prefix + "'"));
        }
        if (users == null || !users.has(user)) {
            return new Refused("its certificate (" + subject + ") names user '" + user
                    + "', who is not in the password file");
        }
        return new User(user);
    }

    /** The user {@code certificate}'s field names, or null when no value of it has the prefix. */
    String user(X509Certificate certificate) {
        for (String value : values(certificate)) {
            if (!value.startsWith(prefix)) {
                continue;
            }
            String rest = value.substring(prefix.length());
            int end = rest.length();
            for (int i = 0; i < rest.length(); i++) {
                if (delimiters.indexOf(rest.charAt(i)) >= 0) {
                    end = i;
                    break;
                }
            }
            if (end > 0) {
                return rest.substring(0, end);
            }
        }
        return null;
    }

    private List<String> values(X509Certificate certificate) {
        List<String> values = new ArrayList<>();
        if (field.equals("subject.cn")) {
            try {
                for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
                    if (rdn.getType().equalsIgnoreCase("CN")) {
                        values.add(String.valueOf(rdn.getValue()));
                    }
                }
            } catch (InvalidNameException e) {
                return values;
            }
            return values;
        }
        int type = switch (field) {
            case "san.email" -> SAN_EMAIL;
            case "san.dnsname" -> SAN_DNS;
            default -> SAN_URI;
        };
        try {
            Collection<List<?>> names = certificate.getSubjectAlternativeNames();
            if (names != null) {
                for (List<?> name : names) {
                    if (name.size() >= 2 && name.get(0) instanceof Integer kind && kind == type
                            && name.get(1) instanceof String text) {
                        values.add(text);
                    }
                }
            }
        } catch (CertificateParsingException e) {
            return values;
        }
        return values;
    }
}
