"""Writing an output file without ever destroying what was there.

One rule for every file nbayes writes (``nbayes.save``, every ``-o`` of the command line):

* a regular file, or a path that does not exist yet, is written to a temporary file in the
  same folder and renamed over the target only once everything was written and synced
  (``os.replace`` is atomic), so a reader, a full disk or an interrupt never leaves a
  half-written file in the place of an older good one, and a failure leaves no temporary file;
  through a symbolic link the link's target is replaced and the link kept;
* anything else -- a named pipe, a character device, ``/dev/stdout``, ``/dev/fd/N`` -- is
  written into directly and never replaced: renaming over ``/dev/null`` as root would replace
  a system device, and renaming over a named pipe would leave its reader waiting forever;
* a new file gets the permissions the umask allows (``0o666 & ~umask``, like the shell's
  ``>``); a replaced file keeps its mode (and, where we may, its owner).

A failed write raises :class:`WriteError`, an ``OSError`` whose message names the output.
"""

from __future__ import annotations

import errno
import io
import os
import re
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

__all__ = ["WriteError", "output_file", "same_file", "special_target"]

# Paths that name one of our own file descriptors: writing there must go to that descriptor
# (``os.dup``), not reopen it (which would truncate a file opened for appending) nor replace it.
_FD_PATH = re.compile(r"^/(?:dev/fd|proc/self/fd|proc/(\d+)/fd)/(\d+)$")
_STD_PATHS = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}


#: Signals (SIGINT, SIGTERM) that the command line received while it ran. Once one has
#: arrived nothing more is committed: a library may have swallowed the interrupt (pandas'
#: CSV reader can take it for the end of the data) and the output would be incomplete.
stop_signals: list[int] = []


class WriteError(OSError):
    """Writing an output failed (full disk, I/O error, a pipe closed by its reader, ...).

    ``str(error)`` is ``"cannot write <output>: <reason>"``; ``errno`` is the system's code.
    """

    def __init__(self, name: str, exc: BaseException):
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        super().__init__(getattr(exc, "errno", None) or errno.EIO, reason)
        self.output = name
        self.message = f"cannot write {name}: {reason}"

    def __str__(self) -> str:
        return self.message


def _fd_behind(path: str) -> int | None:
    """The descriptor number when ``path`` (or a link it goes through) is ``/dev/fd/N``,
    ``/proc/self/fd/N``, ``/dev/stdout`` and the like; None otherwise."""
    p = os.path.abspath(path)
    for _ in range(40):  # a chain of links, bounded like the kernel's own limit
        if p in _STD_PATHS:
            return _STD_PATHS[p]
        m = _FD_PATH.match(p)
        if m and (m[1] is None or int(m[1]) == os.getpid()):
            return int(m[2])
        if not os.path.islink(p):
            return None
        p = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
    return None


def special_target(path) -> bool:
    """True when ``path`` is written into directly (a descriptor, pipe, device or socket),
    False when it is a regular file or does not exist yet (written by atomic replacement)."""
    path = os.fspath(path)
    if _fd_behind(path) is not None:
        return True
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return os.path.realpath(path).startswith("/proc/")
    except OSError:
        return False
    return not stat.S_ISREG(mode) or os.path.realpath(path).startswith("/proc/")


def same_file(a, b) -> bool:
    """True when the paths ``a`` and ``b`` name one file (same device and inode): another
    spelling, a symbolic link or a hard link of it."""
    try:
        sa, sb = os.stat(a), os.stat(b)
    except (OSError, ValueError):
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


class _Sink(io.RawIOBase):
    """Unbuffered writes to a descriptor; an OSError becomes a WriteError naming the output."""

    def __init__(self, fd: int, name: str):
        self._fd, self.name, self._written = fd, name, 0

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def tell(self) -> int:  # pyarrow asks for the position; pipes cannot seek
        return self._written

    def write(self, b) -> int:
        if self.closed:  # never write through a descriptor number that may be reused by now
            raise ValueError(f"{self.name}: write to a closed output")
        try:
            n = os.write(self._fd, b)
        except OSError as exc:
            raise WriteError(self.name, exc) from None
        self._written += n
        return n

    def close(self) -> None:
        if not self.closed:
            try:
                os.close(self._fd)
            finally:
                super().close()


def _open_direct(path: str, name: str) -> int:
    fd = _fd_behind(path)
    try:
        if fd is not None:
            return os.dup(fd)
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "it is a folder")
        if stat.S_ISBLK(mode):  # a whole disk or partition: never what a user meant
            raise OSError(errno.EPERM, "it is a block device; nbayes does not write to disks")
        # No O_CREAT, no O_TRUNC: a pipe or device is written into as it is.
        return os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise WriteError(name, exc) from None


@contextmanager
def output_file(path, *, name: str | None = None) -> Iterator[BinaryIO]:
    """A binary file to write ``path`` through, committed when the block ends without error.

    Parameters
    ----------
    path : str or path-like
        The output. A regular file or a new path is replaced atomically; a pipe, device or
        descriptor path (``/dev/stdout``, ``/dev/fd/3``) is written into directly.
    name : str, optional
        How messages name the output (default: ``path`` as given).

    Yields
    ------
    io.BufferedWriter
        Writes raise :class:`WriteError` on failure. If the block raises (an error or an
        interrupt), a regular target keeps its old content and no temporary file remains.

    Examples
    --------
    >>> import os, tempfile
    >>> from nbayes._output import output_file
    >>> path = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with output_file(path) as f:
    ...     _ = f.write(b"hello\\n")
    >>> open(path).read()
    'hello\\n'
    """
    path = os.fspath(path)
    name = name or path
    if special_target(path):
        direct = io.BufferedWriter(_Sink(_open_direct(path, name), name))
        try:
            yield direct
            direct.flush()
        finally:
            try:
                direct.close()
            except OSError:
                pass  # the error that matters was raised by the block or by flush
        return

    target = os.path.realpath(path)  # through a link: replace its target, keep the link
    folder, base = os.path.split(target)
    try:
        old = os.stat(target)
    except FileNotFoundError:
        old = None
    except OSError as exc:
        raise WriteError(name, exc) from None
    try:
        tmp, fd = _temporary(folder, base)
    except OSError as exc:
        raise WriteError(name, exc) from None
    sink: io.BufferedWriter[_Sink] | None = None
    try:
        if old is not None:
            try:
                os.fchmod(fd, stat.S_IMODE(old.st_mode) & 0o777)
                if (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
                    try:
                        os.fchown(fd, old.st_uid, old.st_gid)
                    except PermissionError:
                        pass  # not ours to give away: the file becomes the writer's
            except OSError as exc:  # a file system without modes, say: name the output
                raise WriteError(name, exc) from None
        sink = io.BufferedWriter(_Sink(fd, name))
        yield sink
        sink.flush()
        if stop_signals:
            raise KeyboardInterrupt
        try:
            os.fsync(fd)
            sink.close()
            os.replace(tmp, target)
        except OSError as exc:
            raise WriteError(name, exc) from None
    except BaseException:
        try:
            if sink is not None:
                sink.raw.close()  # the descriptor only: flushing would raise again
            else:
                os.close(fd)
        except OSError:
            pass
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _temporary(folder: str, base: str) -> tuple[str, int]:
    """A new hidden file next to the target; mode 0o666 so that the umask decides."""
    while True:
        tmp = os.path.join(folder, f".{base}.{secrets.token_hex(4)}.tmp")
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            continue
