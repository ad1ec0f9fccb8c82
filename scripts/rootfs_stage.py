"""The Dockerfile's runtime stage carried out in a bare Debian root, without a container engine (for
scripts/rootfs-check): the Dockerfile read, a root laid with debootstrap, the stage's instructions run in it."""
import json
import os
import re
import shlex
import shutil
import subprocess

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"  # what a container starts with
NOT_A_LIBRARY = "not a library"
MOUNTED = ["var/cache/apt/archives", "dev/pts", "proc"]  # what a run mounts in its root, innermost first


def log(text):
    print(f"rootfs-check: {text}", flush=True)


def fail(text):
    raise SystemExit(f"rootfs-check: FAILED: {text}")


def run(command, **options):
    return subprocess.run(command, check=True, **options)


def output(command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def instructions(path):
    """(keyword, text) of every instruction, continuation lines joined, comments and the parser directive left out."""
    joined, pending = [], ""
    for line in open(path):
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        text = pending + stripped
        pending = ""
        keyword, _, rest = text.partition(" ")
        joined.append((keyword.upper(), rest.strip()))
    return joined


def expand(text, variables):
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: variables.get(m.group(1) or m.group(2), ""), text)


def runtime_stage():
    """(image, instructions) of the Dockerfile's last stage, the image's name expanded with the global ARGs."""
    everything = instructions(os.path.join(REPOSITORY, "Dockerfile"))
    starts = [index for index, (keyword, _) in enumerate(everything) if keyword == "FROM"]
    global_args = dict(arg.split("=", 1) for keyword, arg in everything[:starts[0]] if keyword == "ARG")
    return expand(everything[starts[-1]][1].split()[0], global_args), everything[starts[-1] + 1:]


def packages():
    """(libraries, others) of deploy/runtime-packages.txt: a line whose comment says it is not a library is other."""
    libraries, others = [], []
    for line in open(os.path.join(REPOSITORY, "deploy/runtime-packages.txt")):
        name, _, comment = line.partition("#")
        if name.strip():
            (others if comment.strip().startswith(NOT_A_LIBRARY) else libraries).append(name.strip())
    return libraries, others


def needed(binary):
    """The shared libraries a binary names in its dynamic section."""
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", output(["readelf", "-d", binary]))


def mirrors():
    """The host's Debian mirror and security mirror, when its apt sources name them."""
    main, security = "http://deb.debian.org/debian", "http://deb.debian.org/debian-security"
    for path in ["/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"]:
        if os.path.exists(path):
            for url in re.findall(r"(?:URIs:|deb)\s+(https?://\S+)", open(path).read()):
                if url.rstrip("/").endswith("debian-security"):
                    security = url
                elif url.rstrip("/").endswith("/debian"):
                    main = url
    return main, security


class Container:
    """What the stage leaves for running: the user, the environment, ENTRYPOINT + CMD and the HEALTHCHECK command."""

    def __init__(self, root, user, environment, command, health):
        self.root, self.user, self.environment, self.command, self.health = root, user, environment, command, health
        self.uid, self.gid = (int(part) for part in user.split(":"))

    def as_user(self, command, environment=None):
        """A command line that runs `command` in the root as the stage's user, with only the given environment."""
        environment = self.environment if environment is None else environment
        return ["chroot", self.root, "setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups",
                "/usr/bin/env", "-i", f"PATH={PATH}", "HOME=/nonexistent",
                *[f"{name}={value}" for name, value in environment.items()], *command]


class StageRoot:
    """A root under `work`: a pristine minbase kept between runs, copied afresh to `work/root` for each run."""

    def __init__(self, work):
        self.work = work
        self.minbase = os.path.join(work, "minbase")
        self.path = os.path.join(work, "root")
        self.archives = os.path.join(work, "apt-archives")  # downloaded packages, kept between runs
        self.mounts = []

    def lay(self, suite):
        main, security = mirrors()
        if not os.path.exists(os.path.join(self.minbase, ".complete")):
            if shutil.which("debootstrap") is None:
                run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "debootstrap"])
            shutil.rmtree(self.minbase, ignore_errors=True)
            log(f"debootstrap --variant=minbase {suite} from {main}")
            run(["debootstrap", "--variant=minbase", suite, self.minbase, main], stdout=subprocess.DEVNULL)
            open(os.path.join(self.minbase, ".complete"), "w").close()
        self.remove()
        run(["cp", "-a", self.minbase, self.path])
        os.remove(os.path.join(self.path, ".complete"))
        # The sources debian:SUITE-slim has: the suite, its updates and its security updates.
        if os.path.exists(os.path.join(self.path, "etc/apt/sources.list")):
            os.remove(os.path.join(self.path, "etc/apt/sources.list"))
        with open(os.path.join(self.path, "etc/apt/sources.list.d/debian.sources"), "w") as file:
            keyring = "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
            file.write(f"Types: deb\nURIs: {main}\nSuites: {suite} {suite}-updates\nComponents: main\n{keyring}\n\n"
                       f"Types: deb\nURIs: {security}\nSuites: {suite}-security\nComponents: main\n{keyring}\n")
        shutil.copyfile("/etc/resolv.conf", os.path.join(self.path, "etc/resolv.conf"))
        self.mount(["-t", "proc", "proc"], "proc")  # the server finds its own executable through /proc/self/exe
        # A terminal device apt can log through, as a container has; an instance of its own, not the host's.
        self.mount(["-t", "devpts", "-o", "newinstance,ptmxmode=0666", "devpts"], "dev/pts")
        os.makedirs(self.archives, exist_ok=True)
        self.mount(["--bind", self.archives], "var/cache/apt/archives")

    def mount(self, source, inside):
        target = os.path.join(self.path, inside)
        run(["mount", *source, target])
        self.mounts.append(target)

    def unmount(self, inside=None):
        """Unmounts one mount (by its path inside the root), or all of them."""
        targets = [os.path.join(self.path, inside)] if inside else list(reversed(self.mounts))
        for target in targets:
            if subprocess.run(["umount", target]).returncode != 0:
                subprocess.run(["umount", "--lazy", target])
            if target in self.mounts:
                self.mounts.remove(target)

    def remove(self):
        """Deletes the run's root, after unmounting anything a run stopped by force left mounted in it."""
        for inside in MOUNTED:
            if os.path.ismount(os.path.join(self.path, inside)):
                self.unmount(inside)
        if any(os.path.ismount(os.path.join(self.path, inside)) for inside in MOUNTED):
            fail(f"{self.path} still has a mount in it: not deleting it")
        shutil.rmtree(self.path, ignore_errors=True)

    def packages_installed(self):
        return len(output(["chroot", self.path, "dpkg-query", "-W"]).splitlines())

    def carry_out(self, stage, binary):
        """Carries out the runtime stage's instructions, the build stage's binary being `binary`."""
        variables, environment, user, command, health = {}, {}, None, [], None
        for keyword, text in stage:
            if keyword == "ARG":
                name, _, default = text.partition("=")
                variables[name] = default
            elif keyword == "COPY":
                words = text.split()
                from_build = any(word.startswith("--from=") for word in words)
                source = binary if from_build else os.path.join(REPOSITORY, words[-2])
                target = os.path.join(self.path, words[-1].lstrip("/"))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(source, target)
            elif keyword == "RUN":
                log(f"RUN {text[:100]}…" if len(text) > 100 else f"RUN {text}")
                run(["chroot", self.path, "/usr/bin/env", "-i", f"PATH={PATH}", "DEBIAN_FRONTEND=noninteractive",
                     *[f"{name}={value}" for name, value in variables.items()], "/bin/sh", "-c", text],
                    stdout=subprocess.DEVNULL)
            elif keyword == "USER":
                user = expand(text, variables)
            elif keyword == "ENV":
                for assignment in shlex.split(text):
                    name, _, value = assignment.partition("=")
                    environment[name] = expand(value, {**variables, **environment})
            elif keyword in ("ENTRYPOINT", "CMD"):
                command += json.loads(text)
            elif keyword == "HEALTHCHECK":
                health = json.loads(text[text.index(" CMD ") + 5:].strip())
            elif keyword not in ("EXPOSE", "LABEL", "WORKDIR"):
                fail(f"the runtime stage has a {keyword} instruction this check does not carry out")
        if user is None or not re.fullmatch(r"\d+:\d+", user) or user.startswith("0:"):
            fail(f"the runtime stage's USER must be a numeric uid:gid other than root, not {user!r}")
        if not command or health is None:
            fail("the runtime stage needs an ENTRYPOINT or CMD, and a HEALTHCHECK")
        return Container(self.path, user, environment, command, health)

    def check_libraries(self, binary, inside, libraries):
        """Every library the binary names resolves in the root and comes from a listed package; no listed library
        package holds none of them. Returns the names."""
        resolved = {}
        for line in output(["chroot", self.path, "ldd", inside]).splitlines():
            match = re.match(r"\s*(\S+) => (.*) \(0x", line) or re.match(r"\s*(\S+) => (not found)", line)
            if match:
                resolved[match.group(1)] = match.group(2)
            elif match := re.match(r"\s*(/\S+) \(0x", line):  # the dynamic loader, named by its path
                resolved[os.path.basename(match.group(1))] = match.group(1)
        missing = [name for name in resolved if resolved[name] == "not found"]
        if missing:
            fail(f"not found in the root: {', '.join(missing)}")
        owners = {}
        for name in needed(binary):
            owner = self.owner_of(resolved[name]) if name in resolved else None
            if owner is None:
                fail(f"{name} ({resolved.get(name)}) belongs to no package in the root")
            owners.setdefault(owner, []).append(name)
        unlisted = sorted(set(owners) - set(libraries))
        idle = sorted(set(libraries) - set(owners))
        if unlisted:
            fail("the binary needs libraries of packages deploy/runtime-packages.txt does not list: "
                 + ", ".join(f"{owner} ({', '.join(owners[owner])})" for owner in unlisted))
        if idle:
            fail(f"deploy/runtime-packages.txt lists packages holding no library the binary names: {', '.join(idle)}")
        return [name for names in owners.values() for name in names]

    def owner_of(self, path):
        """The package dpkg says holds a file, tried with and without /usr (Debian 12 merges /lib into /usr/lib)."""
        real = os.path.realpath(os.path.join(self.path, path.lstrip("/")))
        candidates = {path} | ({real[len(self.path):]} if real.startswith(self.path + "/") else set())
        for candidate in list(candidates):
            candidates.add(candidate[4:] if candidate.startswith("/usr/") else "/usr" + candidate)
        for candidate in sorted(candidates):
            result = subprocess.run(["chroot", self.path, "dpkg", "-S", candidate], capture_output=True, text=True)
            if result.returncode == 0:
                return result.stdout.split(":")[0].strip()
        return None
