"""The `cardzoo serve` command: it starts, prints a working address, and refuses bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e '.[web]')")

from cardzoo.scripts.cli import main  # noqa: E402
from cardzoo.scripts.serve_cmd import is_local  # noqa: E402


def test_serve_prints_its_address_and_answers_only_to_local_names():
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "cardzoo.scripts.cli", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith("cardzoo serve: open http://127.0.0.1:"), line + proc.stderr.read()
        url = line.split()[3]
        with urllib.request.urlopen(url, timeout=30) as r:
            assert r.status == 200 and "cardzoo" in r.read().decode()
        # a request naming another host (DNS rebinding) is refused
        req = urllib.request.Request(url + "api/catalog", headers={"Host": "evil.example"})
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=30)
        assert err.value.code == 400
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()


@pytest.mark.parametrize("argv, reason", [
    (["serve", "--port", "70000"], "--port must be 0..65535"),
    (["serve", "--host", "203.0.113.9", "--port", "0"], "cannot listen on 203.0.113.9"),
])
def test_bad_addresses_are_one_line_errors(argv, reason, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert reason in err and err.count("\n") == 1


def test_local_addresses():
    assert is_local("127.0.0.1") and is_local("localhost") and is_local("::1") and is_local("127.0.0.2")
    assert not is_local("0.0.0.0") and not is_local("192.168.1.5") and not is_local("example.com")
