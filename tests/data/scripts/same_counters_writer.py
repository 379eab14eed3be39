# Advances the disk, CPU and uptime counters iostat and sadc read, once a second, half-way
# between their samples (see same_counters_iostat.sh; run there as writer.py).
import sys, time
# Snapshots of /proc/diskstats and /proc/uptime, advanced once a second half-way between the
# readers' samples so every iostat started together sees the same counters.
base = [l for l in open('/tmp/capwork/iostat/diskstats.orig')]
up0 = float(open('/tmp/capwork/iostat/uptime.orig').read().split()[0])
# per interval: reads, read KiB, read ms, writes, write KiB, write ms, merges w, queue ms, busy ms
steps = [(1024, 8192, 1024, 128, 1024, 256, 0, 1200, 600),
         (512, 4096, 1024, 384, 3072, 768, 48, 2000, 700),
         (1536, 12288, 1536, 512, 4096, 512, 0, 2000, 900),
         (256, 16384, 512, 256, 2048, 512, 128, 1000, 300)]
def snapshot(k):
    tot = [0]*9
    for s in steps[:k]:
        tot = [a+b for a,b in zip(tot,s)]
    out=[]
    for l in base:
        f=l.split()
        if f[2]=='vda':
            v=[int(x) for x in f[3:]]
            v[0]+=tot[0]; v[2]+=tot[1]*2; v[3]+=tot[2]
            v[4]+=tot[3]; v[5]+=tot[6]; v[6]+=tot[4]*2; v[7]+=tot[5]
            v[9]+=tot[8]; v[10]+=tot[7]
            l="%4s %7s %s %s\n" % (f[0], f[1], f[2], " ".join(map(str,v)))
        out.append(l)
    open('/tmp/capwork/iostat/diskstats','w').write("".join(out))
    v=[int(x) for x in open('/tmp/capwork/iostat/vda.stat.orig').read().split()]
    v[0]+=tot[0]; v[2]+=tot[1]*2; v[3]+=tot[2]
    v[4]+=tot[3]; v[5]+=tot[6]; v[6]+=tot[4]*2; v[7]+=tot[5]
    v[9]+=tot[8]; v[10]+=tot[7]
    open('/tmp/capwork/iostat/vda.stat','w').write(" ".join("%8d" % x for x in v) + "\n")
    # CPU: 200 jiffies a second over 2 CPUs: user 40+10k, system 20, iowait 10+5k, idle the rest
    st=open('/tmp/capwork/iostat/stat.orig').read().split("\n")
    for i,l in enumerate(st):
        f=l.split()
        if f and f[0] in ('cpu','cpu0','cpu1'):
            n=[int(x) for x in f[1:]]
            share = 1 if f[0]=='cpu' else 0.5
            user=sum(40+10*j for j in range(k)); sys_=20*k; io=sum(10+5*j for j in range(k))
            n[0]+=int(user*share); n[2]+=int(sys_*share); n[4]+=int(io*share)
            n[3]+=int((200*k-user-sys_-io)*share)
            st[i]=f[0]+("  " if f[0]=='cpu' else " ")+" ".join(map(str,n))
    open('/tmp/capwork/iostat/stat','w').write("\n".join(st))
    open('/tmp/capwork/iostat/uptime','w').write("%.2f %.2f\n" % (up0+k, (up0+k)*2))
import os
snapshot(0)
open('/tmp/capwork/iostat/ready','w').write('1')
while not os.path.exists('/tmp/capwork/iostat/go'):
    time.sleep(0.01)
time.sleep(float(sys.argv[1]))
for k in range(1,len(steps)+1):
    snapshot(k)
    time.sleep(1.0)
