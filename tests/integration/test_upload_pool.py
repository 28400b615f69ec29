"""The upload pool's children never outlive the process that started them, idle or busy,
and answer in frames whatever the file (no HTTP here: ``service.uploads`` alone)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.uploads.pool import UploadLimits, UploadPool
from tests.support.uploads import GATE_ENV, Gate, long_export
from tests.support.waiting import PROMPTLY, wait_for, wait_until

pytestmark = pytest.mark.processes  # a pool's children, and a stand-in API process

#: A stand-in for the API process: a pool, one upload, the child's pid printed; then it
#: waits to be killed. With a gate set, the upload is held in the child when it dies.
API_STAND_IN = """
import sys, threading
from service.uploads.pool import UploadLimits, UploadPool
pool = UploadPool(UploadLimits())
held = len(sys.argv) > 1
job = threading.Thread(target=pool.audit, args=("a", b"0\\n", 1, 1), daemon=True)
job.start()
if not held:
    job.join()
while not pool.pids():
    threading.Event().wait(0.01)
print(pool.pids()[0], flush=True)
threading.Event().wait()
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead: only its parent (init, by then) has not reaped it yet
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("busy", [False, True], ids=["idle", "mid-job"])
def test_a_child_dies_with_the_process_that_started_it(tmp_path: Path, busy: bool) -> None:
    env = dict(os.environ)
    if busy:
        gate = Gate(tmp_path / "gate")
        env[GATE_ENV] = str(gate.path)
    argv = [sys.executable, "-c", API_STAND_IN, *(["held"] if busy else [])]
    api = subprocess.Popen(argv, stdout=subprocess.PIPE, env=env, cwd=Path.cwd())
    assert api.stdout is not None
    try:
        child = int(api.stdout.readline())
        if busy:
            with gate.hold():  # the job is in the child, blocked at the gate
                api.kill()
                api.wait()
                wait_until(lambda: not alive(child), PROMPTLY, "the busy child to exit")
        else:
            api.kill()
            api.wait()
            wait_until(lambda: not alive(child), PROMPTLY, "the idle child to exit")
    finally:
        if api.poll() is None:
            api.kill()
            api.wait()


def test_a_pool_answers_junk_and_real_files_and_reuses_its_children() -> None:
    pool = UploadPool(UploadLimits(workers=1))
    try:
        junk = json.loads(pool.audit("a", b"0\n" * 5000, 1, 1))
        assert junk["verdict"]["reason"] == "not a stored event but a JSON number"
        [pid] = pool.pids()
        real = json.loads(pool.audit("a", long_export(30), 1, 3))
        assert real["verdict"]["status"] == "incomplete" and real["last"] == 30
        assert [board["version"] for board in real["boards"]] == [1, 2, 3]
        assert pool.pids() == [pid] and pool.load() == (0, 0)
    finally:
        pool.close()
    wait_for(pool.pids, lambda pids: pids == [], PROMPTLY, "the children stopped")
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
