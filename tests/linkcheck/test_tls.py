"""A certificate the checker cannot trust is a TLS error: degraded, never broken."""

from __future__ import annotations

import shutil
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from editorial.linkcheck.classify import Outcome
from tests.linkcheck.helpers import check_one
from tests.linkcheck.server import LocalSite

pytestmark = pytest.mark.usefixtures("allow_loopback")


@pytest.fixture(scope="module")
def self_signed_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSite]:
    openssl = shutil.which("openssl")
    assert openssl, "openssl is needed to make the test certificate"
    folder: Path = tmp_path_factory.mktemp("tls")
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-keyout", str(folder / "key.pem"),
            "-out", str(folder / "cert.pem"),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    site = LocalSite(ssl_context=context)
    site.start()
    yield site
    site.stop()


def test_an_untrusted_certificate_is_a_tls_error_not_broken(self_signed_site: LocalSite) -> None:
    result = check_one(self_signed_site.url("/ok"))
    assert result.outcome is Outcome.TLS_ERROR
    assert "TLS" in result.error
    assert result.attempts == 1


@pytest.fixture(scope="module")
def trusted_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalSite, Path]]:
    """A site whose certificate a local authority signed, and that authority's file."""
    openssl = shutil.which("openssl")
    assert openssl, "openssl is needed to make the test certificates"
    folder: Path = tmp_path_factory.mktemp("tls-ca")

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], check=True, capture_output=True, cwd=folder)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=Test CA",
        "-keyout", "ca.key", "-out", "ca.pem")  # fmt: skip
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
        "-keyout", "site.key", "-out", "site.csr")  # fmt: skip
    (folder / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "site.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "1", "-extfile", "ext.cnf", "-out", "site.pem")  # fmt: skip
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(folder / "site.pem", folder / "site.key")
    site = LocalSite(ssl_context=context)
    site.start()
    yield site, folder / "ca.pem"
    site.stop()


def test_a_certificate_the_systems_trust_store_vouches_for_is_ok(
    trusted_site: tuple[LocalSite, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The transport trusts what Python's ssl module trusts (SSL_CERT_FILE, else the
    # system's store), not whatever CA path the pycurl wheel's libcurl was built with.
    site, authority = trusted_site
    monkeypatch.setenv("SSL_CERT_FILE", str(authority))
    result = check_one(site.url("/ok"))
    assert result.outcome is Outcome.OK, result.error
    assert result.fingerprint
    assert site.requests == [("GET", "/ok")]
