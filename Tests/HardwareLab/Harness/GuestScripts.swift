/// The scripts that run inside the guest. Kept as text here so the image and each run
/// folder are made from the test binary alone.
enum GuestScripts {
    /// The initramfs's `/init` (busybox sh, PID 1): load the 9p and overlay modules, mount
    /// the host's `/` read-only with a tmpfs overlay on top plus the image's extras (modules,
    /// udev), mount the results share at `/lab`, and chroot into it to run `/lab/job.sh`.
    /// Every failure powers the guest off with a line on the console, so the host sees the
    /// step at once instead of waiting for its deadline.
    static let initramfsInit = #"""
        #!/bin/busybox sh
        /bin/busybox --install -s /bin
        mount -t devtmpfs devtmpfs /dev
        exec </dev/console >/dev/console 2>&1
        mount -t proc proc /proc
        mount -t sysfs sysfs /sys
        fail() { echo "lab-init: FAILED: $*"; poweroff -f; sleep 60; }
        for module in $(cat /modules/order); do
            insmod /modules/$module.ko || fail "insmod $module"
        done
        nine="trans=virtio,version=9p2000.L,msize=262144"
        mkdir -p /mnt/host /mnt/extras /mnt/rw
        mount -t 9p -o $nine,cache=loose,ro hostroot /mnt/host || fail "mount the host's root over 9p"
        mount -t 9p -o $nine,cache=loose,ro extras /mnt/extras || fail "mount the image's extras over 9p"
        mount -t tmpfs -o mode=0755 tmpfs /mnt/rw && mkdir /mnt/rw/upper /mnt/rw/work
        mount -t overlay -o lowerdir=/mnt/extras:/mnt/host,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work overlay /newroot \
            || fail "mount the overlay root"
        mkdir -p /newroot/lab
        mount -t 9p -o $nine results /newroot/lab || fail "mount the results share"
        for fs in dev proc sys; do mount --move /$fs /newroot/$fs || fail "move /$fs"; done
        if [ -e /newroot/lab/systemd/root.sh ]; then
            # A guest with systemd as PID 1: the share's script fits the root for it, and the
            # job runs as one of its units.
            chroot /newroot /bin/sh /lab/systemd/root.sh || fail "fit the root for systemd"
            echo "lab-init: root ready, starting systemd"
            exec switch_root /newroot /lib/systemd/systemd
        fi
        echo "lab-init: root ready, running the job"
        chroot /newroot /bin/bash /lab/job.sh
        echo "lab-init: the job ended with status $?; powering off"
        poweroff -f
        sleep 60
        """#

    /// `/lab/job.sh`: makes the chroot a running system (a tmpfs `/run`, udev when
    /// asked), says `ready`, then runs the host's steps: each `cmd/NNNN.sh` the host drops
    /// into the share, with its output in `out/NNNN.out` and its exit status in
    /// `out/NNNN.status` (written last, by rename), until the host drops `cmd/stop`.
    static func job(startUdev: Bool) -> String {
        job(
            setup: #"""
                # /tmp stays the overlay's (writes go to its tmpfs layer): a checkout under the host's
                # /tmp, as CI's may be, must stay visible, or the guest finds no scanbridged to run.
                mount -t tmpfs tmpfs /run || fail "mount /run"
                mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts
                say "kernel $(uname -r)"
                if [ "\#(startUdev ? "yes" : "no")" = yes ]; then
                    /lib/systemd/systemd-udevd --daemon || fail "start systemd-udevd"
                    udevadm trigger --action=add && udevadm settle --timeout=60 || fail "udevadm trigger and settle"
                    say "udev is running"
                fi
                """#)
    }

    /// `/lab/job.sh` as the `lab-job.service` of a guest with systemd as PID 1
    /// (`systemdRoot`): systemd made `/run` and started udev; the job waits until systemd's
    /// start-up has finished (to `multi-user.target`), writes `systemd-analyze`'s account of
    /// it to `/lab/state/boot-time`, and waits for udev's first settle.
    static let systemdJob = job(
        setup: #"""
            say "kernel $(uname -r), systemd as PID 1"
            # Not an error when degraded: a unit of the host's that cannot run in the guest.
            systemctl is-system-running --wait >/dev/null || say "systemd is $(systemctl is-system-running)"
            systemd-analyze >/lab/state/boot-time 2>&1 || fail "systemd-analyze"
            say "$(head -n 1 /lab/state/boot-time)"
            udevadm settle --timeout=60 || fail "udevadm settle"
            """#)

    private static func job(setup: String) -> String {
        #"""
        #!/bin/bash
        export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
        export HOME=/root LANG=C.UTF-8 SYSTEMD_IGNORE_CHROOT=1
        . /lab/lab.env
        exec >/lab/job.log 2>&1
        # Each line carries the guest's uptime, to see where the time of a slow run went.
        # Builtins where a program would do: every process started costs the emulated guest tens
        # of milliseconds, and a step runs these lines around its script.
        uptime() { read -r up _ </proc/uptime; }
        say() { uptime; line="lab-job: [$up] $*"; echo "$line"; echo "$line" >/dev/console; }
        fail() { say "FAILED: $*"; echo "$*" >/lab/state/failed; exit 1; }
        \#(setup)
        # A pause that starts no process, for the job's polling and its steps' waits (`nap 0.1`):
        # under emulation a `sleep` costs the guest about as much CPU as it waits, taken from
        # the daemon under test. Steps run in bash and inherit the function; the FIFO is opened
        # for each nap alone, so no daemon a step starts inherits it.
        mkfifo /run/lab-nap || fail "make the nap FIFO"
        nap() { read -r -t "$1" _ <>/run/lab-nap; return 0; }
        export -f nap
        echo ready >/lab/state/ready.tmp && mv /lab/state/ready.tmp /lab/state/ready
        say "ready"
        cd /tmp
        while [ ! -e /lab/cmd/stop ]; do
            for script in /lab/cmd/*.sh; do
                [ -e "$script" ] || continue
                name=${script##*/}; name=${name%.sh}
                read -r title <"$script"
                say "step $name: ${title#'# '}"
                bash "$script" >/lab/out/$name.out 2>&1 </dev/null
                status=$?
                echo $status >/lab/out/$name.tmp
                mv /lab/out/$name.tmp /lab/out/$name.status
                rm -f "$script"
                # In the job's log only: where a step's own time ends and the host's begins.
                uptime; echo "lab-job: [$up] step $name ended with status $status"
            done
            nap 0.05  # 9p tells the guest of no new file: the share is polled
        done
        say "stop asked"
        """#
    }

    /// `/lab/systemd/root.sh`: run by the initramfs's `/init` in the overlay root just
    /// before systemd takes it over. The guest starts as a fresh counter box would: systemd's
    /// own units and the lab's job, none of the services the host enabled (its databases,
    /// timers and sockets), with a machine id of its own.
    static let systemdRoot = #"""
        #!/bin/sh
        set -e
        units=/etc/systemd/system
        mkdir -p $units
        rm -rf $units/*.wants $units/default.target
        ln -s /lib/systemd/system/multi-user.target $units/default.target
        mkdir -p $units/multi-user.target.wants
        install -m 0644 /lab/systemd/lab-job.service $units/
        ln -s ../lab-job.service $units/multi-user.target.wants/lab-job.service
        # The serial console carries the lab's lines and systemd's failures, not a login prompt
        # and the progress of every start job.
        ln -sf /dev/null $units/serial-getty@ttyS0.service
        ln -sf /dev/null $units/console-getty.service
        # A machine, not the container the host may be: systemd takes /.dockerenv for one.
        rm -f /.dockerenv
        mkdir -p /etc/systemd/system.conf.d
        printf '[Manager]\nShowStatus=error\n' >/etc/systemd/system.conf.d/lab.conf
        # The root is the overlay: the host's file systems are not the guest's to mount, and
        # its /tmp is not the guest's to empty at boot (a checkout there must stay visible).
        : >/etc/fstab
        mkdir -p /etc/tmpfiles.d && ln -sf /dev/null /etc/tmpfiles.d/tmp.conf
        # Not empty: an empty machine id is a first boot, and systemd-firstboot prompts on the console.
        tr -d - </proc/sys/kernel/random/uuid >/etc/machine-id
        """#

    /// The unit that runs `/lab/job.sh` under systemd. The guest powers off when the job
    /// ends, as it does without systemd.
    static let systemdJobUnit = """
        [Unit]
        Description=The hardware lab's job: the steps the host drops into /lab/cmd
        After=systemd-udevd.service systemd-udev-trigger.service
        SuccessAction=poweroff-force
        FailureAction=poweroff-force

        [Service]
        ExecStart=/bin/bash /lab/job.sh

        """

    /// `/lab/bin/lab_evdev.py`: decodes key presses from an evdev node into text, US
    /// layout, as a keyboard-wedge scanner types it. Used by `evdev-read` below.
    static let evdevModule = #"""
        import os, select, struct
        RECORD = struct.Struct("llHHi")  # struct input_event on x86-64
        ROWS = {2: "1234567890-=", 16: "qwertyuiop[]", 30: "asdfghjkl;'", 44: "zxcvbnm,./"}
        KEYS = {code + i: ch for code, row in ROWS.items() for i, ch in enumerate(row)}
        KEYS.update({28: "\n", 57: " "})
        SHIFTED = dict(zip("1234567890-=[];',./", "!@#$%^&*()_+{}:\"<>?"))

        def lines(fd, timeout=None):
            """Yields each line typed on fd, without its Enter; stops when the device goes (or at timeout)."""
            text, shift, pending = "", False, b""
            while True:
                if not select.select([fd], [], [], timeout)[0]:
                    return
                try:
                    chunk = os.read(fd, RECORD.size * 64)
                except OSError:  # ENODEV: unplugged
                    return
                if not chunk:
                    return
                pending += chunk
                while len(pending) >= RECORD.size:
                    _, _, kind, code, value = RECORD.unpack(pending[:RECORD.size])
                    pending = pending[RECORD.size:]
                    if kind == 1 and code in (42, 54):
                        shift = value != 0
                    elif kind == 1 and value == 1 and code in KEYS:
                        ch = KEYS[code]
                        if ch == "\n":
                            yield text
                            text = ""
                        else:
                            text += (ch.upper() if ch.isalpha() else SHIFTED.get(ch, ch)) if shift else ch
        """#

    /// `/lab/bin/evdev-read NODE OUTPUT SECONDS [LINES]`: writes the first LINES lines (1 by
    /// default) typed on an evdev node, each with its newline, to OUTPUT, so a test can show
    /// that typed keys reach the guest's input layer; the lines that came, when no key came
    /// for SECONDS. It touches `OUTPUT.open` once the node is open: type after that.
    static let evdevRead = #"""
        #!/usr/bin/python3
        import itertools, os, sys
        from lab_evdev import lines
        node, output, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
        count = int(sys.argv[4]) if len(sys.argv) > 4 else 1
        fd = os.open(node, os.O_RDONLY)
        open(output + ".open", "w").close()
        typed = list(itertools.islice(lines(fd, timeout=seconds), count))
        with open(output + ".tmp", "w") as f:
            f.write("".join(line + "\n" for line in typed))
        os.rename(output + ".tmp", output)
        """#

    /// `/lab/bin/device-state SOCKET ID STATE SECONDS`: polls `devices.list` on one connection
    /// to the daemon at SOCKET until device ID is in STATE (`-`: not listed); when SECONDS pass
    /// first, prints what the list still shows and exits 1. One process for a whole wait: a CLI
    /// call per poll would cost the emulated guest a second or more each.
    static let deviceState = #"""
        #!/usr/bin/python3
        import json, socket, sys, time
        path, device, state, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
        connection = socket.socket(socket.AF_UNIX)
        connection.connect(path)
        stream = connection.makefile("rwb", buffering=0)
        deadline = time.monotonic() + seconds
        number = 0
        while True:
            number += 1
            request = {"jsonrpc": "2.0", "id": number, "method": "devices.list", "params": {}}
            stream.write(json.dumps(request).encode() + b"\n")
            line = stream.readline()
            if not line:
                sys.exit("the daemon closed the connection")
            answer = json.loads(line)
            if "result" not in answer:
                sys.exit("devices.list answered %s" % line.decode().strip())
            states = {listed["id"]: listed["state"] for listed in answer["result"]["devices"]}
            if states.get(device, "-") == state:
                sys.exit(0)
            if time.monotonic() > deadline:
                shown = ", ".join("%s (%s)" % item for item in states.items()) or "no device"
                sys.exit("after %g s devices.list still shows %s" % (seconds, shown))
            time.sleep(0.2)  # a poll of the daemon's own answer: it sends no notice to this connection
        """#

    /// `/lab/bin/uinput-scanner EVENTS NAME VENDOR PRODUCT`: a keyboard-wedge scanner made with
    /// uinput (bus USB, the vendor and product given in hex, every key). It touches
    /// `EVENTS.created` once the device exists, waits for `EVENTS.go`, then types the
    /// recorded `input_event` records of EVENTS (their times are the kernel's to set), a few
    /// milliseconds a key, and removes the device after `EVENTS.done` appears (or 60 s).
    static let uinputScanner = #"""
        #!/usr/bin/python3
        import fcntl, os, struct, sys, time
        def ioc(direction, number, size):  # linux/ioctl.h's _IOC for type 'U'
            return (direction << 30) | (size << 16) | (ord("U") << 8) | number
        UI_DEV_CREATE, UI_DEV_DESTROY = ioc(0, 1, 0), ioc(0, 2, 0)
        UI_DEV_SETUP = ioc(1, 3, struct.calcsize("HHHH80sI"))
        UI_SET_EVBIT, UI_SET_KEYBIT = ioc(1, 100, 4), ioc(1, 101, 4)
        events, name, vendor, product = sys.argv[1], sys.argv[2], int(sys.argv[3], 16), int(sys.argv[4], 16)
        def wait_for(path, seconds):
            deadline = time.time() + seconds
            while not os.path.exists(path) and time.time() < deadline:
                time.sleep(0.05)  # the host's signal is a file in the share: polled, with a deadline
        fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
        fcntl.ioctl(fd, UI_SET_EVBIT, 1)  # EV_KEY
        for key in range(1, 256):
            fcntl.ioctl(fd, UI_SET_KEYBIT, key)
        fcntl.ioctl(fd, UI_DEV_SETUP, struct.pack("HHHH80sI", 3, vendor, product, 1, name.encode(), 0))
        fcntl.ioctl(fd, UI_DEV_CREATE)
        open(events + ".created", "w").close()
        wait_for(events + ".go", 60)
        record = struct.Struct("llHHi")
        data = open(events, "rb").read()
        for offset in range(0, len(data), record.size):
            _, _, kind, code, value = record.unpack_from(data, offset)
            os.write(fd, record.pack(0, 0, kind, code, value))
            if kind == 0:
                time.sleep(0.003)  # pacing: a scanner types a key every few milliseconds
        wait_for(events + ".done", 60)
        fcntl.ioctl(fd, UI_DEV_DESTROY)
        """#
}
