"""No API key in any repr, str, exception or log line; server messages capped (issue 25).

Against the real kjudge-server of conftest.py where a call is made."""

from __future__ import annotations

import asyncio
import logging
import traceback

import grpc
import pytest

import kjudge
from kjudge import _core, errors

SECRET = "f00dfeedc0ffee1234567890abcdef0011223344556677"
KEY = f"kj_0badc0de_{SECRET}"  # shaped like a real key, known to no server


@pytest.fixture(scope="module")
def guarded():
    """Auth on, no worker: every call with an unknown key is refused."""
    from conftest import Deployment

    d = Deployment("redaction", ["--require-auth"])
    d.start_server()
    yield d
    d.stop()


def assert_no_secret(text: str) -> None:
    assert SECRET not in text, text
    assert KEY not in text, text


def test_settings_repr_and_str_show_only_the_key_id():
    settings = _core.Settings.make("127.0.0.1:1", KEY, None, False, None, 5.0)
    for shown in (repr(settings), str(settings), f"{settings}", f"{settings!r}"):
        assert_no_secret(shown)
        assert "api_key='kj_0badc0de_***'" in shown, shown
        assert "server='127.0.0.1:1'" in shown
    assert settings.api_key == KEY, "the key itself is kept for the calls"
    assert settings.metadata() == (("authorization", f"Bearer {KEY}"),)


def test_a_key_of_another_shape_and_one_from_the_environment_are_redacted(monkeypatch):
    other = _core.Settings.make(None, "plain-secret-token", None, False, None, None)
    assert "plain-secret-token" not in repr(other) and "api_key='***'" in repr(other)
    monkeypatch.setenv("KJUDGE_API_KEY", KEY)
    from_env = _core.Settings.make(None, None, None, False, None, None)
    assert from_env.api_key == KEY
    assert_no_secret(repr(from_env))
    assert "api_key=''" in repr(_core.Settings.make(None, "", None, False, None, None)), "no key shows as none"


def test_client_reprs_redact_the_key():
    with kjudge.Client("127.0.0.1:1", api_key=KEY) as client:
        assert_no_secret(repr(client))
        assert_no_secret(repr(vars(client)))  # what a debugger or a locals dump shows
        assert "kj_0badc0de_***" in repr(client)

    async def make() -> str:
        aclient = kjudge.AsyncClient("127.0.0.1:1", api_key=KEY)
        try:
            return repr(aclient) + repr(vars(aclient))
        finally:
            await aclient.close()

    shown = asyncio.run(make())
    assert_no_secret(shown)
    assert "AsyncClient(server='127.0.0.1:1', api_key='kj_0badc0de_***')" in shown


@pytest.mark.parametrize("bad", [KEY + "\n", " " + KEY, KEY[:20] + "\u00e9" + KEY[20:], KEY + "\x00"])
def test_a_key_grpc_cannot_send_is_refused_without_quoting_it(bad, capfd):
    # gRPC itself would raise "metadata was invalid: ('authorization', 'Bearer <key>')" and log
    # the key's bytes to stderr; the client refuses it first and names only the offset.
    with pytest.raises(kjudge.InvalidArgument) as raised:
        kjudge.Client("127.0.0.1:1", api_key=bad)
    assert raised.value.field == "api_key"
    assert "at offset" in str(raised.value)
    shown = str(raised.value) + repr(raised.value) + "".join(traceback.format_exception(raised.value))
    assert_no_secret(shown)
    assert_no_secret(capfd.readouterr().err)


def test_failed_calls_and_their_logs_never_show_the_key(guarded, caplog, capfd):
    log = logging.getLogger("kjudge-test")
    with kjudge.Client(guarded.address, api_key=KEY, retry=kjudge.NO_RETRY) as client:
        with pytest.raises(kjudge.PermissionDenied) as denied:  # unknown key: UNAUTHENTICATED
            client.problems()
        with caplog.at_level(logging.DEBUG):
            log.info("client %r with %s", client, client._settings)
            try:
                client.get_job("1")
            except kjudge.KjudgeError:
                log.exception("call failed")
    with kjudge.Client("127.0.0.1:1", api_key=KEY, retry=kjudge.NO_RETRY, timeout=2) as unreachable:
        with pytest.raises(kjudge.Unreachable) as lost:
            unreachable.problems()
    for error in (denied.value, lost.value):
        assert_no_secret(str(error) + repr(error) + repr(vars(error)))
        assert_no_secret("".join(traceback.format_exception(error)))
    assert "kj_0badc0de_***" in caplog.text
    assert_no_secret(caplog.text)
    captured = capfd.readouterr()
    assert_no_secret(captured.out + captured.err)


def test_server_messages_are_capped_and_stripped_of_control_characters():
    long = "field: " + "x" * 5000 + "\u00e9" * 100
    error = errors.from_status(grpc.StatusCode.INVALID_ARGUMENT, long)
    assert error.field == "field", "the field prefix survives the cap"
    assert len(error.message) < errors.MAX_MESSAGE_CHARS + 40
    cut = len(long[errors.MAX_MESSAGE_CHARS:].encode())
    assert error.message == long[: errors.MAX_MESSAGE_CHARS] + f" ... [{cut} bytes cut]", error.message[-60:]
    assert str(error).startswith("INVALID_ARGUMENT: field: xxx")
    escaped = errors.from_status(grpc.StatusCode.INTERNAL, "a\x1b[31mred\x00b\nline\ttab")
    assert escaped.message == "a?[31mred?b\nline\ttab"
    short = errors.from_status(grpc.StatusCode.NOT_FOUND, "no job 7")
    assert short.message == "no job 7" and short.field == "job_id"
