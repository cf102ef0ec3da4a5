# SPDX-License-Identifier: GPL-2.0
# docs/experiments/scopes-model.py C_US S_US VARIANTS: the fair figures of
# wbench -y -g 100,50,10 (docs/cgroups.md), e.g. 140 310 mech,off
#
# Fluid (GPS) model of the placement: 3 closed-loop pairs (client phase c us, server phase s us)
# and 3 hogs, 1 CPU. variant "mech": docs/cgroups.md mechanism (part moves to system.slice
# while the client waits; server thread at twice its part, the bill); "proxy": mainline proxy
# execution (the waiting client's scope runs its server; system.slice's own 1024 split
# equally among runnable server threads).
import sys
W=[1024,512,102]; H=3*1024
def run(variant,c,s,T=1.0,dt=2e-6):
    phase=['c']*3; rem=[c*(1+0.37*i) for i in range(3)]  # desynchronised start
    done=[0]*3; hog=0.0; t=0.0; cpu_pair=[0.0]*3
    tot=H+sum(W)
    while t<T:
        cl=[i for i in range(3) if phase[i]=='c']; sv=[i for i in range(3) if phase[i]=='s']
        rate=[0.0]*3
        if variant in ('mech','gbill'):
            part=[1024*W[i]/tot for i in range(3)]
            U=1024*(H+sum(W[i] for i in cl))/tot
            ps=sum(part[i] for i in sv)
            S=(1024+ps) if sv else 0
            if variant=='gbill' and sv: S=2*ps if ps<1024 else 1024+ps
            uload=H+sum(W[i] for i in cl)
            hr=U/(U+S)*H/uload
            for i in cl: rate[i]=U/(U+S)*W[i]/uload
            sw=sum(2*part[i] for i in sv)
            for i in sv: rate[i]=S/(U+S)*2*part[i]/sw
        elif variant=='off':
            U=1024; S=1024 if sv else 0
            uload=H+sum(W[i] for i in cl)
            hr=U/(U+S)*H/uload
            for i in cl: rate[i]=U/(U+S)*W[i]/uload
            for i in sv: rate[i]=S/(U+S)/len(sv)
        else:
            U=1024; S=1024 if sv else 0
            uload=H+sum(W)
            hr=U/(U+S)*H/uload
            for i in range(3): rate[i]=U/(U+S)*W[i]/uload
            for i in sv: rate[i]+=S/(U+S)/len(sv)
        hog+=hr*dt
        for i in range(3):
            rem[i]-=rate[i]*dt; cpu_pair[i]+=rate[i]*dt
            if rem[i]<=0:
                if phase[i]=='c': phase[i]='s'; rem[i]+=s
                else: phase[i]='c'; rem[i]+=c; done[i]+=1
        t+=dt
    return hog/T, done, cpu_pair
c=float(sys.argv[1])*1e-6; s=float(sys.argv[2])*1e-6
for v in sys.argv[3].split(','):
    h,d,cp=run(v,c,s)
    print("%-5s c=%3.0fus s=%3.0fus: loops %.1f%%  rates %s  ratio %.2f : %.2f : 1  pair CPU %s"%(v,c*1e6,s*1e6,100*h,[x for x in d],d[0]/d[2],d[1]/d[2],["%.1f"%(100*x) for x in cp]))
