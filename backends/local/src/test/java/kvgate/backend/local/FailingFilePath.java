package kvgate.backend.local;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicBoolean;
import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

/**
 * MVStore's file system {@value #SCHEME}: the disk's, except that forcing a file to the disk fails while
 * {@link #FAIL_FORCE} is set, as {@code fsync} fails on a disk that lost a write.
 */
public final class FailingFilePath extends FilePathWrapper {
    static final String SCHEME = "failing";
    static final AtomicBoolean FAIL_FORCE = new AtomicBoolean();

    static {
        FilePath.register(new FailingFilePath());
    }

    /** Makes sure the scheme is registered; the first use of the class does it. */
    static String prefix() {
        return SCHEME + ":";
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public FileChannel open(String mode) throws IOException {
        return new Failing(getBase().open(mode));
    }

    /** The disk's channel, all but {@link #force} handed on. */
    private static final class Failing extends FileChannel {
        private final FileChannel base;

        Failing(FileChannel base) {
            this.base = base;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            if (FAIL_FORCE.get()) {
                throw new IOException("Input/output error (forced to fail)");
            }
            base.force(metaData);
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return base.read(dst);
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            return base.read(dsts, offset, length);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return base.write(src);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            return base.write(srcs, offset, length);
        }

        @Override
        public long position() throws IOException {
            return base.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            base.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return base.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            base.truncate(size);
            return this;
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            return base.transferTo(position, count, target);
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            return base.transferFrom(src, position, count);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return base.read(dst, position);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            return base.write(src, position);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            return base.map(mode, position, size);
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return base.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return base.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            base.close();
        }
    }
}
