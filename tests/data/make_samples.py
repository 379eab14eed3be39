#!/usr/bin/env python3
"""Writes the tests/data samples that could not be captured on this machine, in the exact
layouts the tools print (printf widths taken from sysstat's own source at the named tag; PerfMon
layout as typeperf/relog write it). See README.md for which file is captured and which written.
Deterministic: run it again and the files come out byte-identical."""
import random
from pathlib import Path

HERE = Path(__file__).parent

# ---------------------------------------------------------------- sysstat 10.2.1 iostat -x -k -t
# Layout: iostat.c of tag v10.2.1, write_disk_stat_header / write_ext_stat / write_cpu_stat.
OLD_HEADER = ("Device:         rrqm/s   wrqm/s     r/s     w/s    rkB/s    wkB/s avgrq-sz "
              "avgqu-sz   await r_await w_await  svctm  %util")


def old_row(dev, rrqm, wrqm, r, w, rkb, wkb, r_await, w_await, util):
    ios = r + w
    avgrq = (rkb + wkb) * 2 / ios if ios else 0.0  # sectors
    awt = (r * r_await + w * w_await) / ios if ios else 0.0
    qu = (r * r_await + w * w_await) / 1000.0
    svctm = util * 10.0 / ios if ios else 0.0
    return ("%-13s" % dev + " %8.2f %8.2f %7.2f %7.2f %8.2f %8.2f %8.2f %8.2f %7.2f %7.2f %7.2f %6.2f %6.2f"
            % (rrqm, wrqm, r, w, rkb, wkb, avgrq, qu, awt, r_await, w_await, svctm, util))


def cpu_block(user, system, iowait, idle):
    return ("avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
            + "         %6.2f  %6.2f  %6.2f  %6.2f  %6.2f  %6.2f\n\n" % (user, 0.0, system, iowait, 0.0, idle))


def write_sysstat10():
    # Hand-checkable numbers: after the since-boot report, sdb does IOPS 200, 300, 400, 500,
    # 1000 (8 KiB each); sdc does sequential 16 KiB writes, half of them merged.
    out = ["Linux 3.10.0-327.el7.x86_64 (db01) \t11/22/2016 \t_x86_64_\t(8 CPU)\n\n"]
    clock = [(5, 10, 1), (5, 10, 2), (5, 10, 3), (5, 10, 4), (5, 10, 5), (5, 10, 6)]
    sdb = [(20, 10), (100, 100), (200, 100), (300, 100), (400, 100), (1000, 0)]
    sdc = [5, 500, 600, 700, 800, 900]
    idle = [95.0, 80.0, 70.0, 60.0, 50.0, 40.0]
    for i, (h, m, s) in enumerate(clock):
        out.append("11/22/2016 %02d:%02d:%02d PM\n" % (h, m, s))
        out.append(cpu_block(100 - idle[i] - 5.0, 3.0, 2.0, idle[i]))
        out.append(OLD_HEADER + "\n")
        out.append(old_row("sda", 0.0, 0.5, 0.2, 1.0, 3.2, 8.0, 0.5, 1.0, 0.1) + "\n")
        r, w = sdb[i]
        out.append(old_row("sdb", 0.0, 0.0, r, w, r * 8.0, w * 8.0, 2.0, 4.0, min(99.0, (r + w) / 12.0)) + "\n")
        w = sdc[i]
        out.append(old_row("sdc", 0.0, w / 2.0, 0.0, w, 0.0, w * 16.0, 0.0, 0.5, w / 20.0) + "\n")
        out.append("\n")
    (HERE / "iostat/sysstat-10.2.1_xkt_en_US.txt").write_text("".join(out))

    # The same tool without -k under POSIXLY_CORRECT prints sectors (rsec/s, wsec/s), no -t.
    out = ["Linux 2.6.32-754.el6.x86_64 (app02) \t11/22/2016 \t_x86_64_\t(4 CPU)\n\n"]
    for i in range(4):
        out.append(cpu_block(10.0, 3.0, 2.0, 85.0))
        out.append(OLD_HEADER.replace("   rkB/s    wkB/s", "  rsec/s   wsec/s") + "\n")
        r = [50.0, 100.0, 200.0, 300.0][i]
        out.append(old_row("sdb", 1.0, 2.0, r, r / 2, r * 16.0, r * 8.0, 1.0, 2.0, 20.0) + "\n\n")
    (HERE / "iostat/sysstat-10.2.1_x_posix_sectors.txt").write_text("".join(out))


# ------------------------------------------------------- sysstat 11.6.0 iostat -x -t, de_DE locale
# Layout: iostat.c of tag v11.6.0, write_disk_stat_header / write_plain_ext_stat; init_nls()
# sets LC_NUMERIC and LC_TIME, so a German locale prints decimal commas and "22.11.2018 17:18:26".
NEW11_HEADER = ("Device            r/s     w/s     rkB/s     wkB/s   rrqm/s   wrqm/s  %rrqm  %wrqm "
                "r_await w_await aqu-sz rareq-sz wareq-sz  svctm  %util")


def row11(dev, r, w, rkb, wkb, rrqm, wrqm, r_await, w_await, util):
    prq = rrqm / (r + rrqm) * 100 if r + rrqm else 0.0
    pwq = wrqm / (w + wrqm) * 100 if w + wrqm else 0.0
    qu = (r * r_await + w * w_await) / 1000.0
    rsz = rkb / r if r else 0.0
    wsz = wkb / w if w else 0.0
    svctm = util * 10.0 / (r + w) if r + w else 0.0
    return ("%-13s" % dev + " %7.2f %7.2f %9.2f %9.2f %8.2f %8.2f %6.2f %6.2f %7.2f %7.2f %6.2f %8.2f %8.2f %6.2f %6.2f"
            % (r, w, rkb, wkb, rrqm, wrqm, prq, pwq, r_await, w_await, qu, rsz, wsz, svctm, util))


def write_sysstat11_de():
    out = ["Linux 4.15.0-20-generic (db02) \t22.11.2018 \t_x86_64_\t(4 CPU)\n\n"]
    reads = [10.0, 1000.0, 2000.0, 3000.0]
    for i, r in enumerate(reads):
        out.append("22.11.2018 17:18:%02d\n" % (26 + i))
        out.append(cpu_block(20.0, 5.0, 1.0, 74.0).replace(".", ","))
        out.append(NEW11_HEADER + "\n")
        line = row11("nvme0n1", r, r / 4, r * 8.0, r / 4 * 8.0, 0.0, 0.0, 0.25, 0.5, 30.0)
        out.append(line.replace(".", ",") + "\n\n")
    (HERE / "iostat/sysstat-11.6.0_xt_de_DE.txt").write_text("".join(out))


# ------------------------------------------- sysstat 12.6.1 iostat -x -t: the example DB server
NEW12_HEADER = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   "
                "wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     "
                "f/s f_await  aqu-sz  %util")


def row12(dev, r, rkb, rrqm, r_await, w, wkb, wrqm, w_await, f, util):
    prq = rrqm / (r + rrqm) * 100 if r + rrqm else 0.0
    pwq = wrqm / (w + wrqm) * 100 if w + wrqm else 0.0
    qu = (r * r_await + w * w_await) / 1000.0
    rsz = rkb / r if r else 0.0
    wsz = wkb / w if w else 0.0
    return ("%-13s" % dev
            + " %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f" % (r, rkb, rrqm, prq, r_await, rsz)
            + " %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f" % (w, wkb, wrqm, pwq, w_await, wsz)
            + " %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f" % (0, 0, 0, 0, 0, 0)
            + " %7.2f %7.2f %6.2f %6.2f" % (f, 0.05 if f else 0.0, qu, util))


def write_example_db():
    """A database server over two hours at 10 s intervals (`iostat -x -t 10 721`): sdb holds the
    data files (8 KiB random IO, about 80 % reads, a busy hour with a peak), sdc the log
    (sequential small writes that the block layer merges), sda the OS."""
    rnd = random.Random(20261122)
    out = ["Linux 5.15.0-91-generic (sqldb01) \t11/22/26 \t_x86_64_\t(16 CPU)\n\n"]
    start = 8 * 3600
    for i in range(721):
        t = start + i * 10
        out.append("11/22/26 %02d:%02d:%02d\n" % (t // 3600, t // 60 % 60, t % 60))
        if i == 0:  # since boot: low averages
            load = 0.15
        else:
            # normal load, a busy second hour, a short peak around 09:20
            load = 0.45 + (0.35 if i > 360 else 0.0) + (0.5 if 480 <= i < 510 else 0.0)
            load *= rnd.uniform(0.85, 1.15)
        idle = max(5.0, 100.0 - 70.0 * load)
        user = (100.0 - idle) * 0.7
        system = (100.0 - idle) * 0.25
        out.append("avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n")
        out.append("         %6.2f  %6.2f  %6.2f  %6.2f  %6.2f  %6.2f\n\n"
                   % (user, 0.0, system, 100.0 - idle - user - system, 0.0, idle))
        out.append(NEW12_HEADER + "\n")
        os_r, os_w = rnd.uniform(0.5, 3.0), rnd.uniform(2.0, 6.0)
        out.append(row12("sda", os_r, os_r * 16.0, 0.1, 0.9, os_w, os_w * 12.0, 1.5, 1.2, 0.4, 0.6) + "\n")
        r = 5000.0 * load * rnd.uniform(0.9, 1.1)
        w = r * rnd.uniform(0.2, 0.3)
        r_await = 0.6 + 1.4 * load * rnd.uniform(0.8, 1.2)
        w_await = 1.0 + 2.0 * load * rnd.uniform(0.8, 1.2)
        util = min(99.9, 100.0 * (r * r_await + w * w_await) / 1000.0 / 8.0)
        out.append(row12("sdb", r, r * 8.0, r * 0.01, r_await, w, w * 8.0, w * 0.02, w_await, 0.0, util) + "\n")
        lw = 900.0 * load * rnd.uniform(0.9, 1.1)
        size_kib = rnd.uniform(8.0, 16.0)
        out.append(row12("sdc", 0.0, 0.0, 0.0, 0.0, lw, lw * size_kib, lw * rnd.uniform(0.5, 0.7),
                         rnd.uniform(0.3, 0.6), lw * 0.5, min(99.0, lw / 20.0)) + "\n")
        out.append("\n\n")
    (HERE / "iostat/example-db-server_sysstat-12.6.1_xt_10s.txt").write_text("".join(out))


def write_sysstat12_ja():
    # ja_JP.UTF-8: LC_TIME's %x is "%Y年%m月%d日", %X is "%H時%M分%S秒".
    out = ["Linux 6.1.0-18-amd64 (dbsv01) \t2026年11月22日 \t_x86_64_\t(4 CPU)\n\n"]
    for i, r in enumerate([1.0, 100.0, 200.0, 300.0]):
        out.append("2026年11月22日 17時18分%02d秒\n" % (26 + i))
        out.append(cpu_block(10.0, 3.0, 2.0, 85.0))
        out.append(NEW12_HEADER + "\n")
        out.append(row12("vdb", r, r * 8.0, 0.0, 0.5, r, r * 8.0, 0.0, 1.0, 0.0, 10.0) + "\n\n\n")
    (HERE / "iostat/sysstat-12.6.1_xt_ja_JP.txt").write_text("".join(out))


# ---------------------------------------------------------------- sysstat 10.2.1 sar -d and sadf -d
def write_sar10():
    # sar -d -u 1 3 of sysstat 10.2.1 (en_US: 12-hour clock; without -p: devM-N names).
    out = ["Linux 3.10.0-327.el7.x86_64 (db01) \t11/22/2016 \t_x86_64_\t(8 CPU)\n\n"]
    cpu_rows, dev_rows = [], []
    values = [(100.0, 800.0, 800.0), (200.0, 3200.0, 0.0), (300.0, 2400.0, 2400.0)]
    for i, (tps, rd, wr) in enumerate(values):
        clock = "05:10:%02d PM" % (2 + i)
        cpu_rows.append("%s     all     %5.2f      0.00      %4.2f      %4.2f      0.00     %5.2f" % (clock, 10.0 + i, 3.0, 1.0, 86.0 - i))
        dev_rows.append("%s    dev8-0      %4.2f      0.00     16.00     16.00      0.00      0.50      0.50      0.05" % (clock, 1.0))
        dev_rows.append("%s   dev8-16    %6.2f   %7.2f   %7.2f     %5.2f      %4.2f      %4.2f      %4.2f     %5.2f"
                        % (clock, tps, rd, wr, (rd + wr) / tps, tps * 2.0 / 1000, 2.0, 0.5, tps / 10.0))
    out.append("05:10:01 PM     CPU     %user     %nice   %system   %iowait    %steal     %idle\n")
    out.append("\n".join(cpu_rows) + "\n")
    out.append("Average:        all     11.00      0.00      3.00      1.00      0.00     85.00\n\n")
    out.append("05:10:01 PM       DEV       tps  rd_sec/s  wr_sec/s  avgrq-sz  avgqu-sz     await     svctm     %util\n")
    out.append("\n".join(dev_rows) + "\n")
    out.append("Average:       dev8-0      1.00      0.00     16.00     16.00      0.00      0.50      0.50      0.05\n")
    out.append("Average:      dev8-16    200.00   2133.33   1066.67     16.00      0.40      2.00      0.50     20.00\n")
    (HERE / "sar/sysstat-10.2.1_sar-d-u_en_US.txt").write_text("".join(out))

    out = ["# hostname;interval;timestamp;DEV;tps;rd_sec/s;wr_sec/s;avgrq-sz;avgqu-sz;await;svctm;%util\n"]
    for i, (tps, rd, wr) in enumerate(values):
        stamp = "2016-11-22 16:10:%02d UTC" % (2 + i)
        out.append("db01;1;%s;dev8-0;1.00;0.00;16.00;16.00;0.00;0.50;0.50;0.05\n" % stamp)
        out.append("db01;1;%s;dev8-16;%.2f;%.2f;%.2f;%.2f;%.2f;2.00;0.50;%.2f\n"
                   % (stamp, tps, rd, wr, (rd + wr) / tps, tps * 2.0 / 1000, tps / 10.0))
    (HERE / "sar/sysstat-10.2.1_sadf-d.csv").write_text("".join(out))


# ---------------------------------------------------------------- PerfMon CSV
COUNTERS_EN = ["Disk Reads/sec", "Disk Writes/sec", "Disk Read Bytes/sec", "Disk Write Bytes/sec",
               "Avg. Disk sec/Read", "Avg. Disk sec/Write", "Avg. Disk Bytes/Read",
               "Avg. Disk Bytes/Write", "Current Disk Queue Length", "% Disk Read Time",
               "% Disk Write Time"]
COUNTERS_DE = ["Lesevorgänge/s", "Schreibvorgänge/s", "Bytes gelesen/s", "Bytes geschrieben/s",
               "Mittlere Sek./Lesevorgänge", "Mittlere Sek./Schreibvorgänge",
               "Mittlere Bytes/Lesevorgang", "Mittlere Bytes/Schreibvorgang",
               "Aktuelle Warteschlangenlänge", "% Lesezeit", "% Schreibzeit"]


def disk_values(reads, writes, read_size, write_size, sec_read, sec_write):
    return [reads, writes, reads * read_size, writes * write_size, sec_read, sec_write,
            read_size if reads else 0.0, write_size if writes else 0.0,
            round(reads * sec_read + writes * sec_write), min(100.0, reads * sec_read * 100),
            min(100.0, writes * sec_write * 100)]


def perfmon(host, zone, bias, disk_object, logical_object, counters, cpu, mem, rows, comma, encoding, name, blank_first):
    cols = ['(PDH-CSV 4.0) (%s)(%d)' % (zone, bias)]
    for inst in ["0 C:", "1 E:", "2 F:"]:
        cols += ["\\\\%s\\%s(%s)\\%s" % (host, disk_object, inst, c) for c in counters]
    cols += ["\\\\%s\\%s(%s)\\%s" % (host, logical_object, inst, counters[0]) for inst in ["C:", "E:", "F:"]]
    cols += ["\\\\%s\\%s" % (host, cpu), "\\\\%s\\%s" % (host, mem)]
    lines = [",".join('"%s"' % c for c in cols)]
    for i, (stamp, disks, cpu_pct, mem_pct) in enumerate(rows):
        cells = [stamp]
        for d in disks:
            cells += [(" " if blank_first and i == 0 else fmt(v, comma)) for v in d]
        cells += [(" " if blank_first and i == 0 else fmt(d[0], comma)) for d in disks]
        cells += [" " if blank_first and i == 0 else fmt(cpu_pct, comma), fmt(mem_pct, comma)]
        lines.append(",".join('"%s"' % c for c in cells))
    (HERE / "perfmon" / name).write_bytes(("\r\n".join(lines) + "\r\n").encode(encoding))


def fmt(value, comma):
    text = "%.6f" % value  # typeperf and relog print six decimals
    return text.replace(".", ",") if comma else text


def perfmon_rows(start_s, reads_e, comma=False):
    rows = []
    for i, r in enumerate(reads_e):
        t = start_s + i * 15
        stamp = "11/22/2026 %02d:%02d:%02d.%03d" % (t // 3600, t // 60 % 60, t % 60, 117 + i)
        c = disk_values(2.0, 6.0, 16384.0, 4096.0, 0.0012, 0.0008)
        e = disk_values(r, r / 4, 8192.0, 8192.0, 0.0015, 0.0025)
        f = disk_values(0.0, 400.0 + i * 100, 0.0, 61440.0, 0.0, 0.0006)
        rows.append((stamp, [c, e, f], 35.0 + i, 62.5 + i / 2))
    return rows


def write_perfmon():
    # English typeperf, 15 s samples; E: is the data disk (8 KiB, 80 % reads), F: the log.
    rows = perfmon_rows(17 * 3600, [800.0, 1200.0, 1600.0, 2000.0, 4000.0])
    perfmon("SQL01", "Pacific Standard Time", 480, "PhysicalDisk", "LogicalDisk", COUNTERS_EN,
            "Processor(_Total)\\% Processor Time", "Memory\\% Committed Bytes In Use",
            rows, False, "ascii", "typeperf_en-US_15s.csv", False)
    # German Windows: localized names, decimal commas, ANSI code page 1252 (typeperf's output).
    rows = perfmon_rows(17 * 3600, [800.0, 1200.0, 1600.0, 2000.0, 4000.0])
    perfmon("SQL01", "Mitteleuropäische Zeit", -60, "Physikalischer Datenträger",
            "Logischer Datenträger", COUNTERS_DE, "Prozessor(_Total)\\Prozessorzeit (%)",
            "Arbeitsspeicher\\Zugesicherte verwendete Bytes (%)", rows, True, "cp1252",
            "typeperf_de-DE_15s.csv", False)
    # Japanese Windows: disk, processor and memory counters keep their English names; the
    # time zone is localized; relog writes the ANSI code page 932 and a first row of blanks for
    # rate counters (no previous sample to difference against).
    rows = perfmon_rows(9 * 3600, [1.0, 1200.0, 1600.0, 2000.0, 4000.0])
    perfmon("DBSV01", "東京 (標準時)", -540, "PhysicalDisk", "LogicalDisk", COUNTERS_EN,
            "Processor(_Total)\\% Processor Time", "Memory\\% Committed Bytes In Use",
            rows, False, "cp932", "relog_ja-JP_15s.csv", True)


# ------------------------------------------------------- captures as they come (issue 13)
# sysstat 12.6.1 `iostat -x --pretty`: iostat.c write_plain_ext_stat with DISPLAY_PRETTY, one
# sub-table per part (hpart 1..4: read, write, discard, flush), the device name last.
PRETTY_HEADERS = ["     r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz Device",
                  "     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz Device",
                  "     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz Device",
                  "     f/s f_await  aqu-sz  %util Device"]


def pretty_report(devices):
    """devices: (name, r, rkb, w, wkb, r_await, w_await, util)"""
    parts = [[], [], [], []]
    for name, r, rkb, w, wkb, ra, wa, util in devices:
        parts[0].append(" %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f %s" % (r, rkb, 0, 0, ra, rkb / r if r else 0, name))
        parts[1].append(" %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f %s" % (w, wkb, 0, 0, wa, wkb / w if w else 0, name))
        parts[2].append(" %7.2f %9.2f %8.2f %6.2f %7.2f %8.2f %s" % (0, 0, 0, 0, 0, 0, name))
        parts[3].append(" %7.2f %7.2f %7.2f %6.2f %s" % (0, 0, (r * ra + w * wa) / 1000, util, name))
    return "".join(h + "\n" + "\n".join(rows) + "\n\n" for h, rows in zip(PRETTY_HEADERS, parts))


def write_iostat_pretty():
    # After the since-boot report: sda 100 reads (8 KiB) + 50 writes (8 KiB), then 300 + 100;
    # sdb 200 writes of 8 KiB, then 10 reads of 64 KiB + 400 writes of 8 KiB.
    out = ["Linux 6.1.0-27-amd64 (db01) \t11/22/26 \t_x86_64_\t(4 CPU)\n\n"]
    reports = [
        [("sda", 5.0, 40.0, 5.0, 40.0, 0.5, 0.5, 1.0), ("sdb", 1.0, 8.0, 1.0, 8.0, 0.5, 0.5, 0.1)],
        [("sda", 100.0, 800.0, 50.0, 400.0, 1.0, 2.0, 20.0), ("sdb", 0.0, 0.0, 200.0, 1600.0, 0.0, 1.0, 15.0)],
        [("sda", 300.0, 2400.0, 100.0, 800.0, 1.5, 2.5, 45.0), ("sdb", 10.0, 640.0, 400.0, 3200.0, 3.0, 1.0, 30.0)],
    ]
    for devices in reports:
        out.append(cpu_block(5.0, 2.0, 1.0, 92.0))
        out.append(pretty_report(devices))
    (HERE / "iostat" / "sysstat-12.6.1_x_pretty_1s.txt").write_text("".join(out))


def write_iostat_p_all():
    # `iostat -x -p ALL 1 3`: sda and its partitions sda1 (reads) and sda2 (writes), and sdb.
    out = ["Linux 6.1.0-27-amd64 (db01) \t11/22/26 \t_x86_64_\t(4 CPU)\n\n"]
    header = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   "
              "wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     "
              "f/s f_await  aqu-sz  %util\n")
    reports = [(1.0, 1.0, 0.0), (400.0, 100.0, 50.0), (600.0, 200.0, 70.0)]
    for r1, w2, wb in reports:
        out.append(cpu_block(5.0, 2.0, 1.0, 92.0))
        out.append(header)
        for name, r, w in [("sda", r1, w2), ("sda1", r1, 0.0), ("sda2", 0.0, w2), ("sdb", 0.0, wb)]:
            out.append(row12(name, r, r * 8, 0.0, 1.0, w, w * 8, 0.0, 2.0, 0.0, 10.0) + "\n")
        out.append("\n")
    (HERE / "iostat" / "sysstat-12.6.1_x_p-ALL_1s.txt").write_text("".join(out))


def write_iostat_logger_prefixed():
    # RHEL 5's sysstat 7.0.2 `iostat -x 10 3` run under a logger that stamps every line
    # (`iostat -x 10 3 | ts '%Y-%m-%d %H:%M:%S'`): the banner has no architecture or CPU count,
    # throughput is in 512-byte sectors (rsec/s, wsec/s), there are no r_await/w_await.
    header = ("Device:         rrqm/s   wrqm/s   r/s   w/s   rsec/s   wsec/s avgrq-sz avgqu-sz   "
              "await  svctm  %util")
    body = ["Linux 2.6.18-308.el5 (db01) \t04/08/2016", ""]
    reports = [(2.0, 3.0), (150.0, 50.0), (450.0, 150.0)]  # sdb reads, writes per second
    for r, w in reports:
        body += ["avg-cpu:  %user   %nice %system %iowait  %steal   %idle",
                 "           4.00    0.00    2.00    1.00    0.00   93.00", "", header]
        ios = r + w
        body.append("%-10s %8.2f %8.2f %5.2f %5.2f %8.2f %8.2f %8.2f %8.2f %7.2f %6.2f %6.2f"
                    % ("sdb", 0.0, 10.0, r, w, r * 16, w * 16, 16.0, ios * 2 / 1000, 2.0, 1.0, ios / 10))
        body.append("")
    out = []
    for i, line in enumerate(body):
        second = 59 + 10 * sum(1 for l in body[:i] if l.startswith("avg-cpu"))
        stamp = "2016-04-08 01:%02d:%02d" % (6 + second // 60, second % 60)
        out.append(stamp + " " + line)
    (HERE / "iostat" / "sysstat-7.0.2_x_logger-prefixed_10s.txt").write_text("\n".join(out) + "\n")


def write_sar_human():
    # sysstat 12.6.1 `sar -d -h 10 3` (sar --human): sizes with sysstat's unit letters (a value
    # in kB divided by 1024 while >= 1024: 7.9k, 40.5M), %util with a % sign, DEV before the
    # numbers (pr_stats.c with DISPLAY_HUMAN_READ).
    def human(kb):
        units = "kMGTP"
        i = 0
        while kb >= 1024:
            kb /= 1024
            i += 1
        return "%.1f%s" % (kb, units[i])
    out = ["Linux 6.1.0-27-amd64 (db01) \t11/22/26 \t_x86_64_\t(4 CPU)", ""]
    out.append("%-11s %12s %9s %9s %9s %9s %9s %9s %9s %9s" % ("17:20:00", "DEV", "tps", "rkB/s", "wkB/s",
                                                              "dkB/s", "areq-sz", "aqu-sz", "await", "%util"))
    rows = [("17:20:10", [("sda", 2.0, 8.0, 8.0), ("sdb", 1000.0, 7.9 * 1024 * 40 / 40, 40.5 * 1024)]),
            ("17:20:20", [("sda", 4.0, 16.0, 16.0), ("sdb", 2000.0, 16.0 * 1024, 81.0 * 1024)]),
            ("17:20:30", [("sda", 2.0, 8.0, 8.0), ("sdb", 500.0, 2.0 * 1024, 20.25 * 1024)])]
    for stamp, devices in rows:
        for name, tps, rkb, wkb in devices:
            out.append("%-11s %12s %9.2f %9s %9s %9s %9s %9.2f %9.2f %9s" % (
                stamp, name, tps, human(rkb), human(wkb), human(0), human((rkb + wkb) / tps),
                tps / 1000, 1.0, "%.1f%%" % min(100.0, tps / 20)))
    (HERE / "sar" / "sysstat-12.6.1_sar-d-h_10s.txt").write_text("\n".join(out) + "\n")


def write_sar_persistent():
    # `sar -d -h -j ID 10 2`: persistent device names (/dev/disk/by-id), DEV last as
    # sysstat's own test output for -j shows it, partitions as ...-partN.
    disk = "ata-ST4000NM0035-1V4107_ZC1A2B3C"
    out = ["Linux 6.1.0-27-amd64 (db01) \t11/22/26 \t_x86_64_\t(4 CPU)", ""]
    out.append("17:20:00          tps     rkB/s     wkB/s     dkB/s   areq-sz    aqu-sz     await     %util DEV")
    for stamp, tps, rkb, wkb in [("17:20:10", 300.0, "2.3M", "0.0k"), ("17:20:20", 600.0, "4.7M", "0.0k")]:
        for name in [disk, disk + "-part1"]:
            out.append("%-8s %12.2f %9s %9s %9s %9s %9.2f %9.2f %9s %s" % (
                stamp, tps, rkb, wkb, "0.0k", "8.0k", 1.0, 2.0, "50.0%", name))
    (HERE / "sar" / "sysstat-12.6.1_sar-d-h-j-ID_10s.txt").write_text("\n".join(out) + "\n")


def write_perfmon_dtu():
    # Azure SQL DTU calculator's PowerShell collector: Get-Counter | Export-Counter -FileFormat
    # csv. Get-Counter reports counter paths in lower case; only LogicalDisk(_Total) Disk
    # Reads/sec and Disk Writes/sec, no byte counters. One-second samples.
    cols = ['(PDH-CSV 4.0) (Pacific Standard Time)(480)',
            "\\\\sql01\\processor(_total)\\% processor time",
            "\\\\sql01\\logicaldisk(_total)\\disk reads/sec",
            "\\\\sql01\\logicaldisk(_total)\\disk writes/sec",
            "\\\\sql01\\sqlserver:databases(_total)\\log bytes flushed/sec"]
    lines = [",".join('"%s"' % c for c in cols)]
    reads = [100.0, 200.0, 300.0, 400.0, 1000.0]
    for i, r in enumerate(reads):
        stamp = "11/22/2026 17:00:%02d.%03d" % (i, 250 + i)
        lines.append(",".join('"%s"' % c for c in [stamp, "%.6f" % (20.0 + i), "%.6f" % r,
                                                   "%.6f" % (r / 4), "%.6f" % 61440.0]))
    (HERE / "perfmon" / "export-counter_dtu-calculator_1s.csv").write_bytes(("\r\n".join(lines) + "\r\n").encode("ascii"))


COUNTERS_RU = ["Обращений чтения с диска/с", "Обращений записи на диск/с",
               "Скорость чтения с диска (байт/с)", "Скорость записи на диск (байт/с)",
               "Среднее время чтения с диска (с)", "Среднее время записи на диск (с)",
               "Среднее число байт при чтении", "Среднее число байт при записи",
               "Текущая длина очереди диска", "% активности диска при чтении",
               "% активности диска при записи"]


def write_perfmon_ru():
    # Russian Windows: localized object and counter names (see README for the sources),
    # decimal commas; typeperf writes the ANSI code page 1251, relog -f csv UTF-16 LE with BOM.
    rows = perfmon_rows(17 * 3600, [800.0, 1200.0, 1600.0, 2000.0, 4000.0])
    perfmon("SQL01", "RTZ 2 (зима)", -180, "Физический диск", "Логический диск", COUNTERS_RU,
            "Процессор(_Total)\\% загруженности процессора",
            "Память\\% использования выделенной памяти", rows, True, "cp1251",
            "typeperf_ru-RU_15s.csv", False)
    perfmon("SQL01", "RTZ 2 (зима)", -180, "Физический диск", "Логический диск", COUNTERS_RU,
            "Процессор(_Total)\\% загруженности процессора",
            "Память\\% использования выделенной памяти", rows, True, "utf-16",
            "relog_ru-RU_15s_utf16.csv", False)


# ------------------------------------------------------------------ Azure Monitor (issue 13)
# Written from the documented Metrics - List response schema (learn.microsoft.com/rest/api/
# monitor/metrics/list: value[].name.value/localizedValue, unit, timeseries[].metadatavalues[]
# .name.value + value, timeseries[].data[].timeStamp/average/maximum, interval, timespan) and
# the metric names of "Supported metrics for Microsoft.Compute/virtualMachines".
# The VM: Standard_D2s_v5 (3,750 uncached IOPS, 85 MB/s), LUN 0 a P30 data disk (8 KiB, 70 %
# reads), LUN 1 a P10 log disk (64 KiB writes), an OS disk. One hour of 1-minute averages;
# in minutes 42-59 the three disks together do 3,750 IOPS: the VM's uncached IOPS limit.
AZ_START = 1795132800  # 2026-11-20T00:00:00Z


def azure_minutes():
    rows = []
    for minute in range(60):
        busy = minute >= 42
        lun0_r, lun0_w = (2282.0, 978.0) if busy else (1400.0, 600.0)
        lun1_w = 460.0 if busy else 300.0
        os_r, os_w = (10.0, 20.0)
        rows.append(dict(minute=minute, lun0=(lun0_r, lun0_w, 8192.0, 8192.0),
                         lun1=(0.0, lun1_w, 0.0, 65536.0), os=(os_r, os_w, 16384.0, 16384.0)))
    return rows


def az_stamp(minute, cli):
    import datetime
    t = datetime.datetime.fromtimestamp(AZ_START + minute * 60, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ("+00:00" if cli else "Z")


def azure_series():
    """(metric name, unit, lun or None, [values per minute])"""
    rows = azure_minutes()
    out = []
    disk_limits = {"lun0": (5000.0, 200e6), "lun1": (500.0, 100e6)}
    for lun, key in (("0", "lun0"), ("1", "lun1")):
        r = [row[key][0] for row in rows]
        w = [row[key][1] for row in rows]
        rb = [row[key][0] * row[key][2] for row in rows]
        wb = [row[key][1] * row[key][3] for row in rows]
        out += [("Data Disk Read Bytes/sec", "BytesPerSecond", lun, rb),
                ("Data Disk Write Bytes/sec", "BytesPerSecond", lun, wb),
                ("Data Disk Read Operations/Sec", "CountPerSecond", lun, r),
                ("Data Disk Write Operations/Sec", "CountPerSecond", lun, w),
                ("Data Disk Queue Depth", "Count", lun, [(a + b) * 0.002 for a, b in zip(r, w)]),
                ("Data Disk IOPS Consumed Percentage", "Percent", lun,
                 [round((a + b) / disk_limits[key][0] * 100, 2) for a, b in zip(r, w)]),
                ("Data Disk Bandwidth Consumed Percentage", "Percent", lun,
                 [round((a + b) / disk_limits[key][1] * 100, 2) for a, b in zip(rb, wb)])]
    r = [row["os"][0] for row in rows]
    w = [row["os"][1] for row in rows]
    out += [("OS Disk Read Bytes/sec", "BytesPerSecond", None, [x * 16384 for x in r]),
            ("OS Disk Write Bytes/sec", "BytesPerSecond", None, [x * 16384 for x in w]),
            ("OS Disk Read Operations/Sec", "CountPerSecond", None, r),
            ("OS Disk Write Operations/Sec", "CountPerSecond", None, w)]
    total_iops = [sum(row[k][0] + row[k][1] for k in ("lun0", "lun1", "os")) for row in rows]
    total_bytes = [sum(row[k][0] * row[k][2] + row[k][1] * row[k][3] for k in ("lun0", "lun1", "os")) for row in rows]
    out += [("VM Uncached IOPS Consumed Percentage", "Percent", None,
             [round(min(100.0, x / 3750 * 100), 2) for x in total_iops]),
            ("VM Uncached Bandwidth Consumed Percentage", "Percent", None,
             [round(x / 85e6 * 100, 2) for x in total_bytes]),
            ("VM Cached IOPS Consumed Percentage", "Percent", None, [0.0] * 60),
            ("VM Cached Bandwidth Consumed Percentage", "Percent", None, [0.0] * 60),
            ("Percentage CPU", "Percent", None, [30.0 + (20.0 if row["minute"] >= 42 else 0.0) for row in rows])]
    return out


def write_azure():
    import json
    vm = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-sql/providers/"
          "Microsoft.Compute/virtualMachines/sql01")
    # az CLI flavour: keys sorted, "interval": "0:01:00", "+00:00" stamps, null aggregations.
    value = []
    for name, unit, lun, values in azure_series():
        meta = [] if lun is None else [{"name": {"localizedValue": "lun", "value": "lun"}, "value": lun}]
        data = [{"average": v, "count": None, "maximum": v, "minimum": None,
                 "timeStamp": az_stamp(i, True), "total": None} for i, v in enumerate(values)]
        value.append({"displayDescription": "", "errorCode": "Success",
                      "id": vm + "/providers/Microsoft.Insights/metrics/" + name,
                      "name": {"localizedValue": name.replace("/sec", "/Sec"), "value": name},
                      "resourceGroup": "rg-sql", "timeseries": [{"data": data, "metadatavalues": meta}],
                      "type": "Microsoft.Insights/metrics", "unit": unit})
    doc = {"cost": 1439.0, "interval": "0:01:00", "namespace": "Microsoft.Compute/virtualMachines",
           "resourceregion": "westeurope",
           "timespan": "%s/%s" % (az_stamp(0, False), az_stamp(60, False)), "value": value}
    (HERE / "azure").mkdir(exist_ok=True)
    (HERE / "azure" / "az-monitor-metrics-list_D2s_v5_PT1M.json").write_text(json.dumps(doc, indent=2) + "\n")
    # REST flavour (the response as documented): "PT1M", "Z" stamps, only the aggregations asked.
    value = []
    for name, unit, lun, values in azure_series():
        meta = [] if lun is None else [{"name": {"value": "LUN", "localizedValue": "LUN"}, "value": lun}]
        value.append({"id": vm + "/providers/Microsoft.Insights/metrics/" + name,
                      "type": "Microsoft.Insights/metrics",
                      "name": {"value": name, "localizedValue": name},
                      "displayDescription": "", "unit": unit,
                      "timeseries": [{"metadatavalues": meta,
                                      "data": [{"timeStamp": az_stamp(i, False), "average": v}
                                               for i, v in enumerate(values)]}],
                      "errorCode": "Success"})
    doc = {"cost": 1439, "timespan": "%s/%s" % (az_stamp(0, False), az_stamp(60, False)),
           "interval": "PT1M", "value": value, "namespace": "Microsoft.Compute/virtualMachines",
           "resourceregion": "westeurope"}
    (HERE / "azure" / "metrics-rest-api_D2s_v5_PT1M.json").write_text(json.dumps(doc, indent=4) + "\n")
    # Metrics explorer CSV download (layout assumed, see README): a title row, then a time
    # column and one column per chart line.
    series = azure_series()
    header = ["TimeGenerated (UTC)"]
    for name, unit, lun, values in series:
        header.append("sql01 - %s (Avg)%s" % (name.replace("/sec", "/Sec"), "" if lun is None else ", LUN = " + lun))
    lines = ['"Chart: sql01 disk metrics, 1 minute, Average"', ",".join('"%s"' % h for h in header)]
    for i in range(60):
        lines.append(",".join(['"%s"' % az_stamp(i, False)] + ["%s" % repr(float(v[3][i])) for v in series]))
    (HERE / "azure" / "metrics-explorer_D2s_v5_PT1M.csv").write_text("\r\n".join(lines) + "\r\n")


if __name__ == "__main__":
    for folder in ["iostat", "sar", "perfmon"]:
        (HERE / folder).mkdir(exist_ok=True)
    write_sysstat10()
    write_sysstat11_de()
    write_example_db()
    write_sysstat12_ja()
    write_sar10()
    write_perfmon()
    write_iostat_pretty()
    write_iostat_p_all()
    write_iostat_logger_prefixed()
    write_sar_human()
    write_sar_persistent()
    write_perfmon_dtu()
    write_perfmon_ru()
    write_azure()
