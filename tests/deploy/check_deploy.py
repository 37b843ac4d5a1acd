#!/usr/bin/env python3
"""Checks kjudge's deployment files (deploy/systemd, deploy/kubernetes, deploy/slurm); run by
check_deploy.sh, which also runs bash -n, shellcheck and systemd-analyze.

  check_deploy.py [--server BIN] [--worker BIN] [--runner BIN]

Without binaries only the static checks run; the rest is reported as SKIP.

1. YAML: every manifest parses (PyYAML) and names its apiVersion, kind and metadata.name.
2. Flags: every --flag given to kjudge-server or kjudge-worker in deploy/ (shell, units, docs,
   container args) exists in that binary's --help. A built-in negative sample proves the scanner
   still finds flags.
3. Consistency: the drain budget (systemd TimeoutStopSec, Kubernetes terminationGracePeriodSeconds,
   Slurm --signal) covers the worker's --job-timeout plus a margin; the server Deployment has one
   replica and strategy Recreate; the worker unit uses KillMode=mixed.
   Kubernetes: every manifest validated against the Kubernetes API schemas (tests/deploy/k8s,
   npm packages installed by deploy/install-deps.sh; fails without node or them); the server a
   StatefulSet of 1 with its volume claim and TLS, tcpSocket probes; the worker with --tls-ca.
4. Smoke runs with the real binaries on loopback (no GPU needed): the units' ExecStart lines (as
   systemd would unescape them), the manifests' command/args/env (paths mapped into a temporary
   folder) and the Slurm script each start a server and a worker with a fresh worker key; the
   worker must register, then drain and exit 0 on SIGTERM, and so must the server. The units run
   over TLS (certificates from deploy/tls/make-certs.sh) under what a container can reproduce of
   their hardening (NoNewPrivileges, LimitNOFILE, UMask, ProtectSystem=strict via a read-only /
   in a mount namespace), checked in the running processes' /proc.
"""
import argparse
import json
import os
import re
import resource
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DRAIN_MARGIN_S = 60  # lease poll in flight (5 s) + runner restart + final report, rounded up

failures = []


def ok(msg):
    print(f"ok    {msg}")


def fail(msg):
    print(f"FAIL  {msg}")
    failures.append(msg)


def skip(msg):
    print(f"SKIP  {msg}")


def rel(path):
    try:
        return str(Path(path).relative_to(ROOT))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------- YAML

def load_yaml():
    """{path: [documents]} for every manifest, or None when PyYAML is missing."""
    try:
        import yaml  # noqa: PLC0415 (optional dependency)
    except ImportError:
        skip("YAML parsing: python3 has no PyYAML (Debian: python3-yaml, which clang-tidy pulls in)")
        return None
    docs = {}
    for path in sorted(DEPLOY.rglob("*.y*ml")):
        try:
            loaded = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
        except yaml.YAMLError as e:
            fail(f"{rel(path)}: does not parse: {e}")
            continue
        bad = []
        for d in loaded:
            if not isinstance(d, dict) or "apiVersion" not in d or "kind" not in d:
                bad.append("a document without apiVersion/kind")
            elif d["kind"] != "Kustomization" and not (d.get("metadata") or {}).get("name"):
                bad.append(f"{d['kind']} without metadata.name")
        if bad or not loaded:
            fail(f"{rel(path)}: {', '.join(bad) or 'empty'}")
        else:
            ok(f"{rel(path)}: parses ({', '.join(d['kind'] for d in loaded)})")
        docs[path] = loaded
    return docs


def containers(docs):
    """(path, workload name, pod spec, container) for every container in the manifests."""
    for path, loaded in (docs or {}).items():
        for d in loaded:
            pod = (((d.get("spec") or {}).get("template") or {}).get("spec")) or {}
            for c in pod.get("containers") or []:
                yield path, d["metadata"]["name"], d, pod, c


# ---------------------------------------------------------------- flags

BINARIES = ("kjudge-server", "kjudge-worker")
# A mention of the binary as a command: not part of a longer name (kjudge-worker@0,
# kjudge-worker.sbatch, kjudge-server:50051, kjudge-server-data).
MENTION = re.compile(r"(?<![\w-])(kjudge-server|kjudge-worker)(?![\w@.:-])")
FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")
KUBECTL_RESOURCE = re.compile(r"\b(deploy|deployment|deployments|svc|service|pod|pods|ds|daemonset|sts|statefulset)/$")
COMMAND_END = re.compile(r"&&|\|\||;|\|(?!\|)|(?<![>&])&(?![>&])")


def help_flags(binary, *sub):
    out = subprocess.run([binary, *sub, "--help"], capture_output=True, text=True, timeout=30)
    return set(FLAG.findall(out.stdout + out.stderr))


def logical_lines(text):
    """Lines with backslash continuations joined (as shells and systemd do)."""
    lines, current, start = [], "", None
    for number, line in enumerate(text.splitlines(), 1):
        start = start or number
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        lines.append((start, current + line))
        current, start = "", None
    if current:
        lines.append((start, current))
    return lines


def scan_text(text):
    """(line, binary, flag) for every flag given to a kjudge-server/-worker command in text."""
    found = []
    for number, line in logical_lines(text):
        # kubectl resource names (deploy/kjudge-worker) are not commands.
        mentions = [m for m in MENTION.finditer(line) if not KUBECTL_RESOURCE.search(line[:m.start()])]
        for i, m in enumerate(mentions):
            end = mentions[i + 1].start() if i + 1 < len(mentions) else len(line)
            segment = line[m.end():end]
            cut = COMMAND_END.search(segment)
            if cut:
                segment = segment[:cut.start()]
            found += [(number, m.group(1), f) for f in FLAG.findall(segment)]
    return found


def scan_container(c):
    """(binary, flags) of a container that runs kjudge-server/-worker, else None."""
    command = [str(x) for x in (c.get("command") or [])]
    if not command or os.path.basename(command[0]) not in BINARIES:
        return None
    flags = []
    for item in command[1:] + [str(x) for x in (c.get("args") or [])]:
        m = re.match(r"--([a-z][a-z0-9-]*)(=|$)", item)
        if m:
            flags.append(m.group(1))
    return os.path.basename(command[0]), flags


def deploy_text_files():
    skip_names = {"__pycache__"}
    for path in sorted(DEPLOY.rglob("*")):
        if path.is_file() and not (set(path.parts) & skip_names) and path.suffix not in (".py", ".pyc"):
            yield path


def check_flags(server, worker, docs):
    if not (server and worker):
        skip("flags against --help: no kjudge-server/kjudge-worker binaries given or in build/bin")
        return
    known = {
        "kjudge-server": help_flags(server) | help_flags(server, "keys") | help_flags(server, "keys", "create")
        | help_flags(server, "keys", "list") | help_flags(server, "keys", "revoke"),
        "kjudge-worker": help_flags(worker),
    }
    for name, flags in known.items():
        if "help" not in flags or len(flags) < 5:
            fail(f"{name} --help lists too few flags ({sorted(flags)}): is it the right binary?")
            return

    # The scanner must still see flags: a sample with known good and bad ones.
    sample = ("ExecStart=/bin/bash -c 'exec kjudge-worker \\\n  --server x --no-such-flag' && kjudge-server-data --y\n"
              "kubectl exec deploy/kjudge-server -- kjudge-server --db d keys create n --role worker | tee --x\n"
              "kubectl scale deploy/kjudge-worker --replicas=2\n")
    got = {(b, f) for _, b, f in scan_text(sample)}
    want = {("kjudge-worker", "server"), ("kjudge-worker", "no-such-flag"), ("kjudge-server", "db"),
            ("kjudge-server", "role")}
    bad = [(b, f) for b, f in got if f not in known[b]]
    if got != want or bad != [("kjudge-worker", "no-such-flag")]:
        fail(f"flag scanner self-test: found {sorted(got)}, expected {sorted(want)}")
        return

    checked = 0
    for path in deploy_text_files():
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        uses = scan_text(text)
        for number, binary, flag in uses:
            if flag not in known[binary]:
                fail(f"{rel(path)}:{number}: {binary} has no --{flag} (not in its --help)")
        checked += len(uses)
        if uses:
            ok(f"{rel(path)}: {len(uses)} kjudge flag use(s) exist: "
               + " ".join(sorted({f"{b.split('-')[1]}:--{f}" for _, b, f in uses})))
    for path, name, _, _, c in containers(docs):
        found = scan_container(c)
        if not found:
            continue
        binary, flags = found
        for flag in flags:
            if flag not in known[binary]:
                fail(f"{rel(path)}: {name}/{c.get('name')}: {binary} has no --{flag}")
        checked += len(flags)
        ok(f"{rel(path)}: container {c.get('name')}: {binary} " + " ".join(f"--{f}" for f in flags))
    if checked == 0:
        fail("no kjudge flags found in deploy/: the scanner is broken")


# ---------------------------------------------------------------- unit files

def unit_settings(path):
    """{key: [values]} of a unit file, continuations joined (comments dropped)."""
    settings = {}
    for _, line in logical_lines(path.read_text()):
        s = line.strip()
        if not s or s[0] in "#;[":
            continue
        key, _, value = s.partition("=")
        settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def exec_start_argv(path, instance="0", specifiers=None):
    """ExecStart= as systemd passes it to execve: quotes removed, $$ -> $, %i and %% replaced."""
    value = unit_settings(path)["ExecStart"][-1].lstrip("-@+!:")
    if "\\" in value:
        raise ValueError("backslash escapes in ExecStart are beyond this emulation")
    if "$" in value.replace("$$", ""):
        raise ValueError("a lone $ in ExecStart: systemd would substitute it when loading the unit; write $$")
    spec = {"i": instance, "%": "%", **(specifiers or {})}
    argv = []
    for word in shlex.split(value):
        word = re.sub(r"%(.)", lambda m: spec[m.group(1)], word)
        argv.append(word.replace("$$", "$"))
    return argv


def int_setting(settings, key):
    try:
        return int(re.sub(r"s(ec)?$", "", settings[key][-1]))
    except (KeyError, ValueError):
        return None


# ---------------------------------------------------------------- consistency

def validate_kubernetes(docs):
    """Every manifest against the Kubernetes API schemas: tests/deploy/k8s/validate.mjs."""
    if docs is None:
        fail("Kubernetes schema validation: python3 has no PyYAML (Debian: python3-yaml)")
        return
    checker = ROOT / "tests" / "deploy" / "k8s"
    node = shutil.which("node")
    if not node:
        fail("Kubernetes schema validation: node is not installed (Debian: nodejs; bash deploy/install-deps.sh)")
        return
    if not (checker / "node_modules" / "kubernetes-models").is_dir():
        fail(f"Kubernetes schema validation: run `npm ci --prefix {rel(checker)}` (deploy/install-deps.sh does)")
        return
    objects = [{"file": rel(path), "doc": d} for path, loaded in docs.items() for d in loaded
               if d.get("kind") != "Kustomization"]
    out = subprocess.run([node, str(checker / "validate.mjs")], input=json.dumps(objects), capture_output=True,
                         text=True, timeout=120)
    for line in (out.stdout + out.stderr).splitlines():
        if line.startswith("ok "):
            ok(line[6:])
        elif line.strip():
            fail(line[6:] if line.startswith("FAIL  ") else line)
    if out.returncode != 0 and "FAIL" not in out.stdout:
        fail(f"Kubernetes schema validation: validate.mjs exited {out.returncode}")
    if len([line for line in out.stdout.splitlines() if line.startswith("ok ")]) != len(objects) and out.returncode == 0:
        fail("Kubernetes schema validation: not every object was reported")


def check_consistency(docs):
    # The bundle's std_headers sit where kjudge-compiler looks for them (bin/../share/...).
    pack = (DEPLOY / "pack.sh").read_text()
    finder = (ROOT / "worker" / "compiler" / "sandboxed_compiler.cc").read_text()
    if '"$OUT/share/kjudge/std_headers"' in pack and '"../share/kjudge/std_headers"' in finder:
        ok("pack.sh puts std_headers at share/kjudge/std_headers, where kjudge-compiler looks from bin/")
    else:
        fail("deploy/pack.sh and worker/compiler/sandboxed_compiler.cc disagree on where std_headers live "
             "(expected share/kjudge/std_headers beside bin/)")
    unit = DEPLOY / "systemd" / "kjudge-worker@.service"
    s = unit_settings(unit)
    text = unit.read_text()
    m = re.search(r"KJUDGE_JOB_TIMEOUT:-(\d+)", text)
    stop = int_setting(s, "TimeoutStopSec")
    if not m or stop is None or stop < int(m.group(1)) + DRAIN_MARGIN_S:
        fail(f"{rel(unit)}: TimeoutStopSec={stop} must be at least --job-timeout ({m and m.group(1)}) + {DRAIN_MARGIN_S}")
    else:
        ok(f"{rel(unit)}: TimeoutStopSec={stop} covers --job-timeout {m.group(1)} + {DRAIN_MARGIN_S} s")
    env = (DEPLOY / "systemd" / "kjudge.env.example").read_text()
    e = re.search(r"^KJUDGE_JOB_TIMEOUT=(\d+)", env, re.M)
    if not e or stop is None or int(e.group(1)) + DRAIN_MARGIN_S > stop:
        fail(f"kjudge.env.example: KJUDGE_JOB_TIMEOUT={e and e.group(1)} does not fit TimeoutStopSec={stop}")
    # Settings that would take the GPU away from the worker (see the unit's comments).
    gpu_breakers = {"PrivateDevices": "yes", "DevicePolicy": "closed strict", "ProtectClock": "yes",
                    "ProcSubset": "pid", "DeviceAllow": ""}
    found = [f"{k}={v}" for k, want in gpu_breakers.items() for v in s.get(k, [])
             if not want or v.lower() in want.split() or (k != "DevicePolicy" and v.lower() in ("true", "on", "1"))]
    if found:
        fail(f"{rel(unit)}: {' '.join(found)} would hide /dev/nvidia* or /proc/driver/nvidia from the worker")
    else:
        ok(f"{rel(unit)}: no PrivateDevices/DevicePolicy/DeviceAllow/ProtectClock/ProcSubset=pid (GPU stays reachable)")
    if s.get("KillMode", [""])[-1] != "mixed":
        fail(f"{rel(unit)}: KillMode must be mixed (SIGTERM to the worker only, not to its runner)")
    else:
        ok(f"{rel(unit)}: KillMode=mixed")

    # Hardening every unit must keep (issue 32); the worker's key only as a credential file.
    required = {"NoNewPrivileges": "yes", "ProtectSystem": "strict", "UMask": "0027", "ProtectHome": "yes",
                "PrivateTmp": "yes", "CapabilityBoundingSet": ""}
    for name in ("kjudge-server.service", "kjudge-worker@.service"):
        path = DEPLOY / "systemd" / name
        us = unit_settings(path)
        wrong = [f"{k}={us.get(k, ['(unset)'])[-1]} (want {v or 'empty'})" for k, v in required.items()
                 if us.get(k, [None])[-1] != v]
        if wrong:
            fail(f"{rel(path)}: hardening: {', '.join(wrong)}")
        else:
            ok(f"{rel(path)}: " + ", ".join(f"{k}={v}" for k, v in required.items()))
    wunit = unit_settings(DEPLOY / "systemd" / "kjudge-worker@.service")
    if not any(v.startswith("api-key:") for v in wunit.get("LoadCredential", [])) or \
            "--api-key-file" not in wunit.get("ExecStart", [""])[-1] or "CREDENTIALS_DIRECTORY" not in wunit["ExecStart"][-1]:
        fail("kjudge-worker@.service: the key must be LoadCredential=api-key:... read with --api-key-file $CREDENTIALS_DIRECTORY/api-key")
    else:
        ok("kjudge-worker@.service: the key is a credential (LoadCredential=api-key:, --api-key-file $CREDENTIALS_DIRECTORY/api-key)")

    # Descriptors: the server holds one per connection and raises its soft limit to the hard one.
    for name, least in (("kjudge-server.service", 65536), ("kjudge-worker@.service", 4096)):
        path = DEPLOY / "systemd" / name
        nofile = unit_settings(path).get("LimitNOFILE", [""])[-1].split(":")[-1]
        if not nofile.isdigit() or int(nofile) < least:
            fail(f"{rel(path)}: LimitNOFILE={nofile or '(unset)'} must be at least {least}")
        else:
            ok(f"{rel(path)}: LimitNOFILE={nofile}")

    sbatch = DEPLOY / "slurm" / "kjudge-worker.sbatch"
    text = sbatch.read_text()
    sig = re.search(r"^#SBATCH --signal=(B:)?TERM@(\d+)", text, re.M)
    jt = re.search(r"KJUDGE_JOB_TIMEOUT:-(\d+)", text)
    if not sig or not sig.group(1):
        fail(f"{rel(sbatch)}: needs #SBATCH --signal=B:TERM@N (B: so that only the script, which forwards it, gets it)")
    elif not jt or int(sig.group(2)) < int(jt.group(1)) + DRAIN_MARGIN_S:
        fail(f"{rel(sbatch)}: --signal lead {sig.group(2)} s must be at least --job-timeout + {DRAIN_MARGIN_S}")
    else:
        ok(f"{rel(sbatch)}: --signal=B:TERM@{sig.group(2)} covers --job-timeout {jt.group(1)} + {DRAIN_MARGIN_S} s")

    if docs is None:
        skip("Kubernetes consistency (no PyYAML)")
        return
    seen = set()
    for path, name, workload, pod, c in containers(docs):
        found = scan_container(c)
        if not found:
            continue
        binary, _ = found
        seen.add(binary)
        args = [str(a) for a in (c.get("args") or [])]
        if binary == "kjudge-server":
            spec = workload.get("spec") or {}
            claims = [t["metadata"]["name"] for t in spec.get("volumeClaimTemplates") or []]
            mounts = {m["name"]: m["mountPath"] for m in c.get("volumeMounts") or []}
            if workload["kind"] != "StatefulSet" or spec.get("replicas") != 1:
                fail(f"{rel(path)}: {name} must be a StatefulSet with replicas: 1 (SQLite: one writer)")
            elif not any(mounts.get(claim) == "/var/lib/kjudge" for claim in claims):
                fail(f"{rel(path)}: {name}: /var/lib/kjudge must be a volumeClaimTemplates volume (found {claims}, {mounts})")
            else:
                ok(f"{rel(path)}: {name}: StatefulSet, 1 replica, the database on its volume claim {claims}")
            probes = [p for p in ("startupProbe", "readinessProbe", "livenessProbe") if "tcpSocket" in (c.get(p) or {})]
            if len(probes) != 3:
                fail(f"{rel(path)}: {name}: expected tcpSocket startup/readiness/liveness probes (gRPC probes cannot speak TLS), found {probes}")
            if not {"--tls-cert", "--tls-key"} <= {a.split("=", 1)[0] for a in args}:
                fail(f"{rel(path)}: {name}: TLS must be on (--tls-cert, --tls-key)")
        else:
            if not any(a.startswith("--tls-ca=") for a in args):
                fail(f"{rel(path)}: {name}: the worker must connect with TLS (--tls-ca)")
            timeout = next((int(a.split("=", 1)[1]) for a in args if a.startswith("--job-timeout=")), 600)
            grace = pod.get("terminationGracePeriodSeconds", 30)
            gpus = (((c.get("resources") or {}).get("limits")) or {}).get("nvidia.com/gpu")
            if grace < timeout + DRAIN_MARGIN_S:
                fail(f"{rel(path)}: terminationGracePeriodSeconds {grace} < --job-timeout {timeout} + {DRAIN_MARGIN_S}")
            elif gpus != 1:
                fail(f"{rel(path)}: the worker must request nvidia.com/gpu: 1 (found {gpus})")
            else:
                ok(f"{rel(path)}: {name}: grace {grace} s covers --job-timeout {timeout} + {DRAIN_MARGIN_S} s; 1 GPU")
    if seen != set(BINARIES):
        fail(f"Kubernetes manifests: expected containers running {BINARIES}, found {sorted(seen)}")


# ---------------------------------------------------------------- smoke runs

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pack_env_sh():
    """The env.sh that deploy/pack.sh writes (taken from pack.sh, so the smoke runs use the real one)."""
    m = re.search(r"cat > \"\$OUT/env.sh\" <<'ENV'\n(.*?)\nENV\n", (DEPLOY / "pack.sh").read_text(), re.S)
    if not m:
        raise RuntimeError("cannot find the env.sh heredoc in deploy/pack.sh")
    return m.group(1) + "\n"


def make_bundle(work, server, worker, runner):
    """A minimal bundle like pack.sh's: bin/ with the binaries (copies, so the worker finds the
    runner next to itself), env.sh, problems/, share/kjudge/std_headers (the compiler's)."""
    bundle = work / "bundle"
    (bundle / "bin").mkdir(parents=True)
    for src, name in ((server, "kjudge-server"), (worker, "kjudge-worker")):
        dst = bundle / "bin" / name
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    (bundle / "bin" / "kjudge-runner").symlink_to(Path(runner).resolve())
    (bundle / "lib").mkdir()
    (bundle / "env.sh").write_text(pack_env_sh())
    (bundle / "problems").symlink_to(ROOT / "problems")
    (bundle / "share" / "kjudge").mkdir(parents=True)
    (bundle / "share" / "kjudge" / "std_headers").symlink_to(ROOT / "worker" / "compiler" / "std_headers")
    return bundle


class Proc:
    def __init__(self, label, argv, env, log, cwd=None):
        self.label, self.log = label, log
        self.handle = open(log, "ab")
        self.p = subprocess.Popen(argv, env=env, stdout=self.handle, stderr=subprocess.STDOUT, cwd=cwd,
                                  start_new_session=True)

    def text(self):
        return Path(self.log).read_text(errors="replace")

    def wait_for(self, needle, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if needle in self.text():
                return True
            if self.p.poll() is not None:
                return needle in self.text()
            time.sleep(0.05)
        return False

    def stop(self, timeout=30):
        """SIGTERM to the main process only (as systemd KillMode=mixed and kubelet do); exit code."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
            return None
        finally:
            self.handle.close()

    def kill(self):
        """SIGKILL to whatever is left of its process group (a script's workers may outlive it)."""
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.p.wait()
        self.handle.close()


def tail(proc):
    return "\n        " + "\n        ".join(proc.text().splitlines()[-8:])


def create_worker_key(server, db, env):
    out = subprocess.run([server, "--db", str(db), "keys", "create", "deploy-smoke", "--role", "worker"],
                         capture_output=True, text=True, env=env, timeout=30)
    key = out.stdout.strip()
    if out.returncode != 0 or not key.startswith("kj_"):
        raise RuntimeError(f"keys create failed: {out.stderr.strip()}")
    return key


def base_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("KJUDGE_")}
    env.pop("CUDA_VISIBLE_DEVICES", None)
    return env


def run_pair(what, server_proc_fn, worker_proc_fn, port, metrics_port=None, inspect=None):
    """Start a server, then a worker against it; both must come up and drain on SIGTERM. The
    worker must be the main process (bash exec'd it), or SIGTERM would not reach it."""
    server_proc = server_proc_fn()
    procs = [server_proc]
    try:
        if not server_proc.wait_for("listening on"):
            fail(f"{what}: the server did not start:{tail(server_proc)}")
            return
        worker_proc = worker_proc_fn()
        procs.append(worker_proc)
        if not worker_proc.wait_for(f"registered with 127.0.0.1:{port}"):
            fail(f"{what}: the worker did not register:{tail(worker_proc)}")
            return
        if metrics_port:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as r:
                    body = r.read().decode(errors="replace")
                if "kjudge_" not in body:
                    fail(f"{what}: /metrics on port {metrics_port} has no kjudge_ metrics")
            except OSError as e:
                fail(f"{what}: /metrics on port {metrics_port}: {e}")
        if inspect:
            inspect(server_proc, worker_proc)
        exe = os.path.basename(os.readlink(f"/proc/{worker_proc.p.pid}/exe")) if worker_proc.p.poll() is None else "?"
        rc = worker_proc.stop()
        if exe != "kjudge-worker" or rc != 0 or "signal 15" not in worker_proc.text():
            fail(f"{what}: worker (main process {exe}) did not drain and exit 0 on SIGTERM (rc {rc}):{tail(worker_proc)}")
            return
        rc = server_proc.stop()
        if rc != 0:
            fail(f"{what}: the server exited with {rc} on SIGTERM:{tail(server_proc)}")
            return
        ok(f"{what}: server up{' with /metrics' if metrics_port else ''}, worker registered with a worker key, "
           "both exited 0 on SIGTERM (the worker draining as the main process)")
    finally:
        for p in procs:
            p.kill()


def smoke_systemd(work, bundle, server, key_file, env0):
    port, metrics = free_port(), free_port()
    state = work / "systemd-state"
    cache = work / "systemd-cache"
    state.mkdir()
    cache.mkdir()
    db = state / "kjudge.sqlite"
    key_file.write_text(create_worker_key(server, db, env0) + "\n")
    tls = work / "systemd-tls"  # TLS is on by default in the units: certificates from make-certs.sh
    made = subprocess.run(["bash", str(DEPLOY / "tls" / "make-certs.sh"), str(tls), "127.0.0.1"],
                          capture_output=True, text=True, timeout=120)
    if made.returncode != 0:
        fail(f"deploy/tls/make-certs.sh: {made.stderr.strip()}")
        return
    settings = {
        "KJUDGE_HOME": str(bundle), "KJUDGE_DB": str(db), "KJUDGE_LISTEN": f"127.0.0.1:{port}",
        "KJUDGE_PROBLEMS": "", "KJUDGE_METRICS_LISTEN": f"127.0.0.1:{metrics}", "KJUDGE_SERVER_ARGS": "",
        "KJUDGE_SERVER": f"127.0.0.1:{port}", "KJUDGE_API_KEY_FILE": str(key_file),
        "KJUDGE_TLS_CERT": str(tls / "server.pem"), "KJUDGE_TLS_KEY": str(tls / "server.key"),
        "KJUDGE_TLS_CA": str(tls / "ca.pem"), "KJUDGE_JOB_TIMEOUT": "600", "KJUDGE_WORKER_ARGS": "",
    }
    unit_dir = DEPLOY / "systemd"
    try:
        server_argv = exec_start_argv(unit_dir / "kjudge-server.service")
        worker_argv = exec_start_argv(unit_dir / "kjudge-worker@.service", "0", {"C": str(work)})
    except (KeyError, ValueError) as e:
        fail(f"systemd ExecStart: {e}")
        return

    server_unit = unit_settings(unit_dir / "kjudge-server.service")
    worker_unit = unit_settings(unit_dir / "kjudge-worker@.service")
    hardened = hardening_wrapper(work)

    def server_proc():
        argv = hardened(server_unit, [state], server_argv)
        return Proc("server", argv, {**env0, **settings, "STATE_DIRECTORY": str(state)}, work / "systemd-server.log")

    # What LoadCredential=api-key:/etc/kjudge/worker.key does: the key in a directory of its own.
    unit_text = (unit_dir / "kjudge-worker@.service").read_text()
    if "LoadCredential=api-key:" not in unit_text or "KJUDGE_API_KEY=" in unit_text:
        fail("systemd worker unit: the key must come from LoadCredential=api-key:..., not the environment")
    creds = work / "systemd-credentials"
    creds.mkdir()
    (creds / "api-key").write_text(key_file.read_text())

    def worker_proc():
        argv = hardened(worker_unit, [cache], worker_argv)
        return Proc("worker", argv, {**env0, **settings, "CACHE_DIRECTORY": str(cache),
                                     "CREDENTIALS_DIRECTORY": str(creds)}, work / "systemd-worker.log")

    def inspect(server_p, worker_p):
        check_hardened_process("kjudge-server.service", server_p.p.pid, server_unit, hardened.applied)
        check_hardened_process("kjudge-worker@.service", worker_p.p.pid, worker_unit, hardened.applied)

    run_pair("systemd units' ExecStart (TLS, under the units' NoNewPrivileges, LimitNOFILE, UMask"
             + (", ProtectSystem=strict" if hardening_wrapper.can_mount else "") + ")",
             server_proc, worker_proc, port, metrics, inspect)
    db_mode = db.stat().st_mode & 0o777 if db.exists() else None
    want_umask = int(server_unit["UMask"][-1], 8)
    if db_mode is None or db_mode & want_umask:
        fail(f"systemd server: the database's mode {db_mode and oct(db_mode)} has bits UMask={oct(want_umask)} clears")
    else:
        ok(f"systemd server: the database was created mode {oct(db_mode)} under UMask={server_unit['UMask'][-1]}")
    # --metrics-listen came from KJUDGE_METRICS_LISTEN: the server answered while it ran?
    log = (work / "systemd-server.log").read_text(errors="replace")
    if "auth required" not in log:
        fail("systemd server: --require-auth is not on")


HARDENING_SH = """#!/bin/bash
# hardening.sh NOFILE UMASK RO(0|1) RW_PATH... -- ARGV...: what systemd does for NoNewPrivileges=yes,
# LimitNOFILE=, UMask= and (RO=1, in a mount namespace of its own) ProtectSystem=strict with the
# unit's StateDirectory/CacheDirectory writable, then execs ARGV (which stays the main process).
set -e
nofile=$1 mask=$2 ro=$3
shift 3
rw=()
while [[ $1 != -- ]]; do rw+=("$1"); shift; done
shift
if ((ro)); then
  for p in "${rw[@]}"; do mount --bind "$p" "$p"; done
  mount -o remount,bind,ro /
fi
umask "$mask"
exec setpriv --no-new-privs prlimit --nofile="$nofile:$nofile" -- "$@"
"""


def hardening_wrapper(work):
    """A function (unit settings, writable paths, argv) -> argv run as systemd would harden it, as
    far as this machine allows without systemd: ProtectSystem=strict needs a mount namespace (root)."""
    script = work / "hardening.sh"
    script.write_text(HARDENING_SH)
    can_mount = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                               capture_output=True).returncode == 0
    hardening_wrapper.can_mount = can_mount
    if not can_mount:
        skip("ProtectSystem=strict emulation: cannot make a mount namespace here (not root)")

    def wrap(unit, rw_paths, argv):
        if unit.get("ProtectSystem", [""])[-1] != "strict" or unit.get("NoNewPrivileges", [""])[-1] != "yes":
            fail("systemd unit without ProtectSystem=strict or NoNewPrivileges=yes (see the hardening check)")
        nofile = str(effective_nofile(unit))
        mask = unit.get("UMask", ["0022"])[-1]
        prefix = ["unshare", "--mount", "--propagation", "private", "--"] if can_mount else []
        return prefix + ["bash", str(script), nofile, mask, "1" if can_mount else "0",
                         *map(str, rw_paths), "--", *argv]
    wrap.applied = can_mount
    return wrap


def effective_nofile(unit):
    """LimitNOFILE=, capped at this process's hard limit (a container may not let root raise it)."""
    want = int(unit["LimitNOFILE"][-1].split(":")[-1])
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return want if hard == resource.RLIM_INFINITY else min(want, hard)


def check_hardened_process(unit_name, pid, unit, protect_system):
    """The running process shows the unit's hardening: NoNewPrivs, Umask, Max open files, and
    (when emulated) a read-only / ."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        limits = Path(f"/proc/{pid}/limits").read_text()
        mounts = Path(f"/proc/{pid}/mounts").read_text()
    except OSError as e:
        fail(f"{unit_name}: cannot read /proc/{pid}: {e}")
        return
    field = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
    nofile = str(effective_nofile(unit))
    open_files = next((line.split()[3:5] for line in limits.splitlines() if line.startswith("Max open files")), [])
    root_ro = any(m.split()[1] == "/" and "ro" in m.split()[3].split(",") for m in mounts.splitlines())
    problems = []
    if field.get("NoNewPrivs", "").strip() != "1":
        problems.append(f"NoNewPrivs {field.get('NoNewPrivs')}")
    # The process may tighten it further (the server sets 0077 itself), never loosen it.
    umask_now, umask_unit = int(field.get("Umask", "0").strip(), 8), int(unit["UMask"][-1], 8)
    if umask_now & umask_unit != umask_unit:
        problems.append(f"Umask {field.get('Umask')}")
    if open_files != [nofile, nofile]:
        problems.append(f"Max open files {open_files}")
    if protect_system and not root_ro:
        problems.append("/ is writable")
    if problems:
        fail(f"{unit_name}: the running process lacks the unit's hardening: {', '.join(problems)}")
    else:
        capped = "" if nofile == unit["LimitNOFILE"][-1] else f" (LimitNOFILE={unit['LimitNOFILE'][-1]} capped at this machine's hard limit)"
        ok(f"{unit_name}: ran with NoNewPrivs 1, Umask {field['Umask'].strip()} (unit {unit['UMask'][-1]}), {nofile} descriptors{capped}"
           + (", / read-only but for its state/cache directory" if protect_system else ""))


def smoke_kubernetes(work, bundle, server, docs, env0):
    if docs is None:
        skip("Kubernetes smoke run (no PyYAML)")
        return
    port, metrics = free_port(), free_port()
    data, cache, tmp = work / "k8s-data", work / "k8s-cache", work / "k8s-tmp"
    secret_dir = work / "k8s-secret"  # the worker-key Secret volume (mountPath /var/run/secrets/kjudge)
    tls_dir = work / "k8s-tls"  # the Secrets kjudge-server-tls and kjudge-ca (/var/run/secrets/kjudge-tls)
    for d in (data, cache, tmp, secret_dir):
        d.mkdir()
    made = subprocess.run(["bash", str(DEPLOY / "tls" / "make-certs.sh"), str(tls_dir), "127.0.0.1"],
                          capture_output=True, text=True, timeout=120)
    if made.returncode != 0:
        fail(f"deploy/tls/make-certs.sh: {made.stderr.strip()}")
        return
    for src, dst in (("server.pem", "tls.crt"), ("server.key", "tls.key"), ("ca.pem", "ca.crt")):
        shutil.copy2(tls_dir / src, tls_dir / dst)  # the Secrets' key names
    mapping = {"/var/lib/kjudge": str(data), "/var/cache/kjudge": str(cache), "/opt/kjudge": str(bundle),
               "/var/run/secrets/kjudge": str(secret_dir), "/var/run/secrets/kjudge-tls": str(tls_dir),
               "0.0.0.0:50051": f"127.0.0.1:{port}", "kjudge-server:50051": f"127.0.0.1:{port}",
               "0.0.0.0:9464": f"127.0.0.1:{metrics}", "/tmp": str(tmp)}
    pattern = re.compile("|".join(re.escape(k) for k in sorted(mapping, key=len, reverse=True)))

    def local(s):  # container paths and addresses -> this machine's, in one pass
        return pattern.sub(lambda m: mapping[m.group(0)], s)

    found = {}
    for _, _, _, _, c in containers(docs):
        sc = scan_container(c)
        if sc:
            found[sc[0]] = c
    if set(found) != set(BINARIES):
        fail("Kubernetes smoke run: no server or worker container found")
        return
    key = create_worker_key(server, data / "kjudge.sqlite", env0)
    (secret_dir / "api-key").write_text(key)  # a Secret volume holds the bytes, no newline
    # What the Dockerfile's ENV does.
    image_env = {**env0, "KJUDGE_HOME": str(bundle),
                 "PATH": f"{bundle}/bin:{env0.get('PATH', '/usr/bin:/bin')}",
                 "LD_LIBRARY_PATH": ":".join(filter(None, [f"{bundle}/lib:/usr/local/cuda/lib64",
                                                           env0.get("LD_LIBRARY_PATH")]))}

    def container_argv_env(c, secrets):
        env = dict(image_env)
        for e in c.get("env") or []:
            src = e.get("valueFrom") or {}
            if "value" in e:
                env[e["name"]] = local(str(e["value"]))
            elif "secretKeyRef" in src:
                env[e["name"]] = secrets[(src["secretKeyRef"]["name"], src["secretKeyRef"]["key"])]
            elif "fieldRef" in src:
                env[e["name"]] = {"spec.nodeName": "node-1", "metadata.name": "pod-1"}.get(src["fieldRef"]["fieldPath"], "x")

        def expand(s):  # Kubernetes' $(VAR) expansion in command and args
            return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)), s)
        argv = [expand(local(str(x))) for x in (c.get("command") or []) + (c.get("args") or [])]
        return argv, env

    secrets = {("kjudge-worker-key", "api-key"): key}
    server_argv, server_env = container_argv_env(found["kjudge-server"], secrets)
    worker_argv, worker_env = container_argv_env(found["kjudge-worker"], secrets)
    run_pair("Kubernetes containers' command/args/env",
             lambda: Proc("server", server_argv, server_env, work / "k8s-server.log", cwd=data),
             lambda: Proc("worker", worker_argv, worker_env, work / "k8s-worker.log", cwd=tmp), port, metrics)
    if "node-1/pod-1" not in (work / "k8s-worker.log").read_text(errors="replace") and \
            "--name=node-1/pod-1" not in worker_argv:
        fail("Kubernetes worker: --name=$(NODE_NAME)/$(POD_NAME) was not expanded")


def smoke_slurm(work, bundle, server, env0):
    sbatch = DEPLOY / "slurm" / "kjudge-worker.sbatch"
    port = free_port()
    state = work / "slurm-state"
    state.mkdir()
    db = state / "kjudge.sqlite"
    key_file = work / "slurm-worker.key"
    key_file.write_text(create_worker_key(server, db, env0) + "\n")
    key_file.chmod(stat.S_IRUSR | stat.S_IWUSR)
    logs = work / "slurm-logs"
    env = {**env0, "KJUDGE_HOME": str(bundle), "KJUDGE_SERVER": f"127.0.0.1:{port}",
           "KJUDGE_API_KEY_FILE": str(key_file), "KJUDGE_LOG_DIR": str(logs),
           "KJUDGE_CACHE_DIR": str(work / "slurm-cache"), "SLURM_JOB_ID": "4242", "SLURM_GPUS_ON_NODE": "1",
           "SLURM_SUBMIT_DIR": str(work), "KJUDGE_PLAINTEXT": "1"}  # TLS under Slurm: tests/deploy/slurm_cluster.sh

    server_proc = Proc("server", [str(bundle / "bin" / "kjudge-server"), "--db", str(db), "--listen",
                                  f"127.0.0.1:{port}", "--problems", str(bundle / "problems"), "--require-auth"],
                       env0, work / "slurm-server.log")
    job = None
    try:
        if not server_proc.wait_for("listening on"):
            fail(f"Slurm smoke run: the server did not start:{tail(server_proc)}")
            return
        job = Proc("sbatch", ["bash", str(sbatch)], env, work / "slurm-job.out")
        gpu_log = logs / "gpu0.log"
        deadline = time.time() + 30
        while time.time() < deadline and job.p.poll() is None:
            if gpu_log.exists() and f"registered with 127.0.0.1:{port}" in gpu_log.read_text(errors="replace"):
                break
            time.sleep(0.05)
        else:
            fail(f"Slurm smoke run: the worker did not register:{tail(job)}")
            return
        rc = job.stop()
        out = job.text()
        if rc != 0 or "exited with status 0" not in out or "signal 15" not in gpu_log.read_text(errors="replace"):
            fail(f"Slurm smoke run: SIGTERM to the batch script did not drain the worker (rc {rc}):{tail(job)}")
        else:
            ok("Slurm script: one worker per GPU registered, SIGTERM to the script drained it, exit 0, "
               "log in KJUDGE_LOG_DIR/gpu0.log")
    finally:
        if job:
            job.kill()
        server_proc.stop()
        server_proc.kill()


def smoke_slurm_devices(work, env0):
    """CUDA_VISIBLE_DEVICES=5,7 must give two workers, --device 0 and --device 1, each with its log
    and --api-key-file, the key never in the environment (a stub worker stands in for the real one)."""
    sbatch = DEPLOY / "slurm" / "kjudge-worker.sbatch"
    stub = work / "stub-bundle"
    (stub / "bin").mkdir(parents=True)
    (stub / "env.sh").write_text(pack_env_sh())
    worker = stub / "bin" / "kjudge-worker"
    worker.write_text("#!/usr/bin/env bash\n"
                      "echo \"argv: $*\"; echo \"key: ${KJUDGE_API_KEY:-none}\"\n"
                      "trap 'echo drained; exit 0' TERM\necho started\nwhile :; do sleep 0.05; done\n")
    worker.chmod(0o755)
    key_file = work / "stub.key"
    key_file.write_text("kj_stub_secret\n")
    key_file.chmod(0o600)
    logs = work / "stub-logs"
    env = {**env0, "KJUDGE_HOME": str(stub), "KJUDGE_SERVER": "judge.example:50051",
           "KJUDGE_API_KEY_FILE": str(key_file), "KJUDGE_LOG_DIR": str(logs), "KJUDGE_CACHE_DIR": str(work / "stub-cache"),
           "CUDA_VISIBLE_DEVICES": "5,7", "SLURM_JOB_ID": "77", "KJUDGE_WORKER_ARGS": "--log-format json",
           "KJUDGE_TLS_CA": str(key_file)}  # any readable file: the stub does not connect
    job = Proc("sbatch", ["bash", str(sbatch)], env, work / "stub-job.out")
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            if all((logs / f"gpu{i}.log").exists() and "started" in (logs / f"gpu{i}.log").read_text() for i in (0, 1)):
                break
            time.sleep(0.05)
        rc = job.stop()
        texts = [(logs / f"gpu{i}.log").read_text() if (logs / f"gpu{i}.log").exists() else "" for i in (0, 1)]
        good = rc == 0 and all(f"--device {i} " in t and f"--api-key-file {key_file} " in t
                               and "key: none" in t and "kj_stub_secret" not in t and "drained" in t
                               and "--log-format json" in t and f"--tls-ca {key_file}" in t for i, t in enumerate(texts)) \
            and not (logs / "gpu2.log").exists()
        if good:
            ok("Slurm script: CUDA_VISIBLE_DEVICES=5,7 -> workers on --device 0 and 1, --api-key-file (key not in env), "
               "extra args passed, SIGTERM forwarded to both")
        else:
            fail(f"Slurm script with CUDA_VISIBLE_DEVICES=5,7 (rc {rc}):{tail(job)}\n        gpu0: {texts[0]!r}\n        gpu1: {texts[1]!r}")
    finally:
        job.kill()


def smoke(server, worker, runner, docs, keep):
    if not (server and worker):
        skip("smoke runs: no kjudge-server/kjudge-worker binaries")
        return
    work = Path(tempfile.mkdtemp(prefix="kjudge-deploy-check."))
    try:
        env0 = base_env()
        smoke_slurm_devices(work, env0)
        if not runner or not os.access(runner, os.X_OK):
            skip(f"smoke runs with the real worker: no kjudge-runner (looked for {runner})")
            return
        bundle = make_bundle(work, server, worker, runner)
        smoke_systemd(work, bundle, server, work / "systemd-worker.key", env0)
        smoke_kubernetes(work, bundle, server, docs, env0)
        smoke_slurm(work, bundle, server, env0)
    finally:
        if keep or failures:
            print(f"      (smoke-run files kept in {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server")
    parser.add_argument("--worker")
    parser.add_argument("--runner", help="default: kjudge-runner next to --worker")
    parser.add_argument("--keep", action="store_true", help="keep the smoke runs' folder")
    parser.add_argument("--no-smoke", action="store_true", help="static checks only")
    args = parser.parse_args()
    runner = args.runner or (str(Path(args.worker).resolve().parent / "kjudge-runner") if args.worker else None)
    docs = load_yaml()
    check_flags(args.server, args.worker, docs)
    validate_kubernetes(docs)
    check_consistency(docs)
    if args.no_smoke:
        skip("smoke runs: --no-smoke")
    else:
        smoke(args.server, args.worker, runner, docs, args.keep)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
