package kvgate.spi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Files that hold secrets (a password file, a private key) must be this user's alone, as ssh requires of its keys: one
 * that other users may read or change is refused at start, with the command that fixes it. Checked on file systems
 * that keep POSIX permissions; others are taken as they are. For the gateway's settings and backend plugins' alike.
 */
public final class SecretFiles {
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);

    private SecretFiles() {
    }

    /**
     * Refuses {@code file}, named by setting {@code key}, when users other than its owner may read or write it.
     *
     * @throws IllegalArgumentException naming the key, the file, its mode and the fix
     */
    public static void checkPrivate(String key, Path file) {
        PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
        if (view == null) {
            return;
        }
        Set<PosixFilePermission> mode;
        try {
            mode = view.readAttributes().permissions();
        } catch (IOException e) {
            return; // a file that cannot be read is refused by the reading, with its own reason
        }
        if (mode.stream().anyMatch(OTHERS::contains)) {
            throw new IllegalArgumentException(key + " = " + file + ": other users may read or change it ("
                    + PosixFilePermissions.toString(mode) + "); it holds secrets: make it its owner's alone (chmod 600 "
                    + file + ")");
        }
    }
}
