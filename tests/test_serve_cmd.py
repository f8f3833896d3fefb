"""The `cardzoo serve` command: it starts, prints a working address, and refuses bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e '.[web]')")

from cardzoo.scripts.cli import main
from cardzoo.scripts.serve_cmd import is_local


def test_serve_prints_its_address_and_answers_only_to_local_names():
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardzoo.scripts.cli", "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
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


@pytest.mark.parametrize(
    "argv, reason",
    [
        (["serve", "--port", "70000"], "--port must be 0..65535"),
        (["serve", "--host", "203.0.113.9", "--port", "0"], "cannot listen on 203.0.113.9"),
    ],
)
def test_bad_addresses_are_one_line_errors(argv, reason, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert reason in err and err.count("\n") == 1


def test_local_addresses():
    assert is_local("127.0.0.1") and is_local("localhost") and is_local("::1") and is_local("127.0.0.2")
    assert not is_local("0.0.0.0") and not is_local("192.168.1.5") and not is_local("example.com")


def test_a_client_that_leaves_mid_body_gives_no_traceback(tmp_path):
    """As found: a request that announces ``Content-Length: 100``, sends less and closes was logged
    as "ERROR: Exception in ASGI application … ClientDisconnect" (40 lines a request). The server
    (the real command, uvicorn and all) logs at most one quiet line for it and answers on."""
    import socket

    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with open(tmp_path / "err", "w+") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cardzoo.scripts.cli", "serve", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=env,
        )
        assert proc.stdout is not None
        try:
            line = proc.stdout.readline()
            assert line.startswith("cardzoo serve: open http://127.0.0.1:"), line
            url = line.split()[3]
            port = int(url.rsplit(":", 1)[1].strip("/"))
            for path in ("/api/games", "/api/replays"):
                with socket.create_connection(("127.0.0.1", port), timeout=30) as raw:
                    raw.sendall(
                        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                        f'Content-Length: 100\r\n\r\n{{"game": "su'.encode()
                    )
            with urllib.request.urlopen(url + "api/catalog", timeout=30) as r:  # it answers on
                assert r.status == 200
        finally:
            proc.terminate()  # uvicorn finishes the requests in hand before it stops
            proc.wait(timeout=30)
            proc.stdout.close()
        err.seek(0)
        log = err.read()
    assert "Traceback" not in log and "ClientDisconnect" not in log and "ERROR" not in log, log
    assert len(log.splitlines()) <= 2, log  # at most one quiet line per request
