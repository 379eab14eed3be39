#LUN CONFIG FILES
for vnet in 1; do
    echo "sd=default,size=693g" > vnet${vnet}-luns-nfs
    for vm in {1..24}; do
        for vol in {1..6}; do
            echo "sd=sd-${vm}-${vol},host=vm${vm},lun=/mnt/vdb${vol}/file-${vm}-${vol},openflags=o_direct" >> vnet${vnet}-luns-nfs
        done
    done
done


#HOST CONFIG FILES
for vnet in 1; do
    echo "hd=default,jvms=1,shell=ssh" > vnet${vnet}-hosts-nfs
    for vm in {1..24}; do
        echo "hd=vm${vm},system=vdbench-vnet${vnet}-${vm},user=root" >> vnet${vnet}-hosts-nfs
    done
done

#VDBENCH WORK SCRIPTS
for vnet in 1; do
    for pattern in FillWrite SeqRead SeqWrite RndRead RndWrite SeqMix RndMix; do
        echo "include=vnet${vnet}-hosts-nfs" > vnet${vnet}-${pattern}-workload
        echo "include=vnet${vnet}-luns-nfs" >> vnet${vnet}-${pattern}-workload
    done 
    #Fill Write File
    echo "wd=FillWrite,sd=sd*,rdpct=0,seekpct=eof,xfersize=64k" >> vnet${vnet}-FillWrite-workload
    echo "* Run Defaults" >> vnet${vnet}-FillWrite-workload
    echo 'rd=Initialize-LUNs-Full,wd=FillWrite,sd=("sd*"),iorate=max,interval=1,forthreads=1,elapsed=259200' >> vnet${vnet}-FillWrite-workload

    #The actual workload files - feel free to add more or use less.
    #   The thread counts shown below were used to generate the performance collateral, 
    #   feel free to change to suite your needs.

    echo "wd=SeqWrite,sd=sd*,rdpct=0,seekpct=0,xfersize=64k" >> vnet${vnet}-SeqWrite-workload
    echo "wd=SeqRead,sd=sd*,rdpct=100,seekpct=0,xfersize=64k" >> vnet${vnet}-SeqRead-workload
    echo "wd=RndRead,sd=sd*,rdpct=100,seekpct=100,xfersize=8k" >> vnet${vnet}-RndRead-workload
    echo "wd=RndWrite,sd=sd*,rdpct=0,seekpct=100,xfersize=8k" >> vnet${vnet}-RndWrite-workload
    echo "wd=SeqMix,sd=sd*,rdpct=50,seekpct=0,xfersize=64k" >> vnet${vnet}-SeqMix-workload
    echo "wd=RndMix,sd=sd*,rdpct=50,seekpct=100,xfersize=8k" >> vnet${vnet}-RndMix-workload
    for pattern in SeqRead SeqWrite RndRead RndWrite SeqMix RndMix; do
        echo "* Run Defaults" >> vnet${vnet}-${pattern}-workload
        #echo "rd=default,curve=(50,100),iorate=curve,warmup=60,elapsed=600,iorate=curve" >> vnet${vnet}-${pattern}-workload
        echo "rd=default,warmup=60,elapsed=600,iorate=max" >> vnet${vnet}-${pattern}-workload
        echo "* Run Definitions" >> vnet${vnet}-${pattern}-workload
    done
    echo 'rd=RndRead,wd=RndRead,sd=("sd*"),threads=25' >> vnet${vnet}-RndRead-workload
    echo 'rd=RndWrite,wd=RndWrite,sd=("sd*"),threads=20' >> vnet${vnet}-RndWrite-workload
    echo 'rd=SeqRead-4,wd=SeqRead,sd=("sd*"),threads=20' >> vnet${vnet}-SeqRead-workload
    echo 'rd=SeqWrite-26,wd=SeqWrite,sd=("sd*"),threads=26' >> vnet${vnet}-SeqWrite-workload
    echo 'rd=SeqWrite-32,wd=SeqWrite,sd=("sd*"),threads=32' >> vnet${vnet}-SeqWrite-workload
    echo 'rd=SeqWrite-40,wd=SeqWrite,sd=("sd*"),threads=40' >> vnet${vnet}-SeqWrite-workload
    echo 'rd=RndMix,wd=RndMix,sd=("sd*"),threads=25' >> vnet${vnet}-RndMix-workload
    echo 'rd=SeqMix-6,wd=SeqMix,sd=("sd*"),threads=6' >> vnet${vnet}-SeqMix-workload
    echo 'rd=SeqMix-7,wd=SeqMix,sd=("sd*"),threads=7' >> vnet${vnet}-SeqMix-workload
done
