"""``widderkopf_env.atomic.write_atomic``: a file holds its old content or all the new,
no temporary file stays behind, and the file and its folder are fsynced."""

from __future__ import annotations

import os

import pytest

from widderkopf_env import atomic


def test_write_replaces_the_whole_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "matches.json"
    atomic.write_atomic(path, b"old")
    atomic.write_atomic(path, b"new content")
    assert path.read_bytes() == b"new content"
    assert [p.name for p in tmp_path.iterdir()] == ["matches.json"]


def test_a_failed_write_keeps_the_old_content(tmp_path, monkeypatch):
    path = tmp_path / "matches.json"
    atomic.write_atomic(path, b"old")

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space"):
        atomic.write_atomic(path, b"new")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["matches.json"]


def test_the_file_and_the_folder_are_fsynced(tmp_path, monkeypatch):
    if not os.path.exists("/proc/self/fd"):
        pytest.skip("needs /proc to name the synced files")
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")),
                                                 real(fd)))
    atomic.write_atomic(tmp_path / "f.json", b"x")
    assert synced[-1] == str(tmp_path) and synced[0].endswith(".tmp")
