"""A filesystem that loses what was never fsynced, as a power cut does (after LazyFS, for databases).

Kill -9 cannot test durability: after a kill the operating system still writes its page cache out.
This FUSE filesystem, held in this process's memory, keeps two copies of every file: what the
programs that use it see (`live`), and what a disk would hold after a power cut (`durable`). A
write changes only the live copy and marks its pages dirty; `fsync` or `fdatasync` copies the
file's dirty pages to the durable copy. `cut()` is the power cut: every file goes back to its
durable copy. Names (create, rename, unlink, mkdir) are durable at once, as a journaling
filesystem's metadata nearly is; only file contents wait for a sync.

`fail_next_fsync(suffix)` makes the next sync of a file whose name ends so answer EIO the way
Linux does when a disk fails (PostgreSQL's "fsyncgate", 2018): the error is reported once, and the
pages it covered are marked clean, so no later sync writes them, while reads still see them until
the cut.

Mount with `LazyFS.mount(folder)`; after a cut, programs must reopen their files: the folder is
unmounted and mounted again, so the kernel keeps no page of the lost future.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mfusepy

PAGE = 4096


@dataclass
class File:
    live: bytearray = field(default_factory=bytearray)
    durable: bytearray = field(default_factory=bytearray)
    dirty: set[int] = field(default_factory=set)  # pages of `live` not yet in `durable`
    mode: int = stat.S_IFREG | 0o600
    mtime: int = field(default_factory=time.time_ns)

    def sync(self) -> None:
        size = len(self.live)
        if len(self.durable) > size:
            del self.durable[size:]
        elif len(self.durable) < size:
            self.durable.extend(bytes(size - len(self.durable)))
        for page in self.dirty:
            start = page * PAGE
            if start < size:
                self.durable[start : min(size, start + PAGE)] = self.live[start : start + PAGE]
        self.dirty.clear()


class LazyFS(mfusepy.Operations):  # type: ignore[misc]
    """The filesystem's state and operations; see the module's docstring."""

    use_ns = True

    def __init__(self) -> None:
        self.files: dict[str, File] = {}
        self.dirs: dict[str, int] = {"/": stat.S_IFDIR | 0o755}
        self.guard = threading.RLock()
        self.fail_suffix: str | None = None
        self.syncs = 0
        self.failed_syncs = 0
        self.lost_pages = 0  # pages dropped by cuts (written, never synced)
        self._fh = 0

    # --- the experiment's controls

    def cut(self) -> None:
        """The power goes: every file is what its last sync left on the disk."""
        with self.guard:
            for each in self.files.values():
                self.lost_pages += len(each.dirty)
                each.live = bytearray(each.durable)
                each.dirty.clear()

    def fail_next_fsync(self, suffix: str) -> None:
        """The next sync of a file whose path ends with `suffix` fails with EIO, and loses its pages."""
        with self.guard:
            self.fail_suffix = suffix

    def mount(self, folder: Path) -> None:
        """Serve this filesystem on `folder` (made if missing) from a thread of this process."""
        folder.mkdir(parents=True, exist_ok=True)
        self._folder = folder
        self._thread = threading.Thread(
            target=lambda: mfusepy.FUSE(self, str(folder), foreground=True, nothreads=True), daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not os.path.ismount(folder):
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError(f"the lazy filesystem did not mount on {folder}")
            time.sleep(0.02)

    def unmount(self) -> None:
        """Stop serving: the kernel forgets every page and attribute it had cached of these files."""
        done = subprocess.run(["fusermount3", "-u", str(self._folder)], check=False, capture_output=True)
        if done.returncode != 0:  # something still has a file open: detach now, let it go later
            subprocess.run(["fusermount3", "-u", "-z", str(self._folder)], check=False, capture_output=True)
        self._thread.join(10)

    def power_cut(self) -> None:
        """Unmount, lose what was never synced, mount again: the programs that used it must be dead."""
        self.unmount()
        self.cut()
        self.mount(self._folder)

    @classmethod
    @contextmanager
    def mounted(cls, folder: Path, fs: LazyFS | None = None) -> Iterator[LazyFS]:
        """Mount `fs` (a new one if None) on `folder` for the block; unmount after."""
        fs = fs or cls()
        fs.mount(folder)
        try:
            yield fs
        finally:
            fs.unmount()

    # --- FUSE operations

    def _file(self, path: str) -> File:
        try:
            return self.files[path]
        except KeyError:
            raise mfusepy.FuseOSError(errno.ENOENT) from None

    def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
        with self.guard:
            now = time.time_ns()
            if path in self.dirs:
                return {
                    "st_mode": self.dirs[path],
                    "st_nlink": 2,
                    "st_size": 0,
                    "st_mtime": now,
                    "st_ctime": now,
                    "st_atime": now,
                    "st_uid": os.getuid(),
                    "st_gid": os.getgid(),
                }
            each = self._file(path)
            return {
                "st_mode": each.mode,
                "st_nlink": 1,
                "st_size": len(each.live),
                "st_mtime": each.mtime,
                "st_ctime": each.mtime,
                "st_atime": each.mtime,
                "st_uid": os.getuid(),
                "st_gid": os.getgid(),
            }

    def readdir(self, path: str, fh: int) -> list[str]:
        with self.guard:
            prefix = path.rstrip("/") + "/"
            names = [p[len(prefix) :] for p in [*self.files, *self.dirs] if p.startswith(prefix) and p != prefix]
            return [".", "..", *[n for n in names if "/" not in n]]

    def mkdir(self, path: str, mode: int) -> int:
        with self.guard:
            self.dirs[path] = stat.S_IFDIR | (mode & 0o7777)
        return 0

    def rmdir(self, path: str) -> int:
        with self.guard:
            self.dirs.pop(path, None)
        return 0

    def create(self, path: str, mode: int, fi: Any = None) -> int:
        with self.guard:
            self.files[path] = File(mode=stat.S_IFREG | (mode & 0o7777))
            self._fh += 1
            return self._fh

    def open(self, path: str, flags: int) -> int:
        with self.guard:
            self._file(path)
            self._fh += 1
            return self._fh

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        with self.guard:
            return bytes(self._file(path).live[offset : offset + size])

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        with self.guard:
            each = self._file(path)
            end = offset + len(data)
            if len(each.live) < end:
                each.live.extend(bytes(end - len(each.live)))
            each.live[offset:end] = data
            each.dirty.update(range(offset // PAGE, (end - 1) // PAGE + 1))
            each.mtime = time.time_ns()
            return len(data)

    def truncate(self, path: str, length: int, fh: int | None = None) -> int:
        with self.guard:
            each = self._file(path)
            if length < len(each.live):
                del each.live[length:]
            else:
                each.live.extend(bytes(length - len(each.live)))
            each.dirty.add(max(0, length - 1) // PAGE)  # the size, too, waits for a sync
            return 0

    def fsync(self, path: str, datasync: int, fh: int) -> int:
        with self.guard:
            each = self._file(path)
            if self.fail_suffix is not None and path.endswith(self.fail_suffix):
                self.fail_suffix = None
                self.failed_syncs += 1
                # Linux marks the pages clean: no later sync writes them. The disk keeps its old copy.
                each.dirty.clear()
                raise mfusepy.FuseOSError(errno.EIO)
            self.syncs += 1
            each.sync()
            return 0

    def fsyncdir(self, path: str, datasync: int, fh: int) -> int:
        return 0

    def link(self, target: str, source: str) -> int:
        """A second name (`target`) for the file `source`: one file, as a hard link is."""
        with self.guard:
            if target in self.files:
                raise mfusepy.FuseOSError(errno.EEXIST)
            self.files[target] = self._file(source)
        return 0

    def unlink(self, path: str) -> int:
        with self.guard:
            self._file(path)
            del self.files[path]
        return 0

    def rename(self, old: str, new: str) -> int:
        with self.guard:
            if old in self.dirs:
                raise mfusepy.FuseOSError(errno.EXDEV)
            self.files[new] = self._file(old)
            del self.files[old]
        return 0

    def chmod(self, path: str, mode: int) -> int:
        with self.guard:
            if path in self.dirs:
                self.dirs[path] = stat.S_IFDIR | (mode & 0o7777)
            else:
                each = self._file(path)
                each.mode = stat.S_IFREG | (mode & 0o7777)
        return 0

    def chown(self, path: str, uid: int, gid: int) -> int:
        return 0

    def utimens(self, path: str, times: tuple[int, int] | None = None) -> int:
        return 0

    def access(self, path: str, amode: int) -> int:
        with self.guard:
            if path not in self.dirs:
                self._file(path)
        return 0

    def statfs(self, path: str) -> dict[str, int]:
        return {
            "f_bsize": PAGE,
            "f_frsize": PAGE,
            "f_blocks": 1 << 20,
            "f_bfree": 1 << 19,
            "f_bavail": 1 << 19,
            "f_files": 1 << 16,
            "f_ffree": 1 << 15,
            "f_favail": 1 << 15,
            "f_namemax": 255,
        }
