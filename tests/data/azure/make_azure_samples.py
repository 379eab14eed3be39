#!/usr/bin/env python3
"""Writes the Azure input samples `iofit catalog import` is tested on (deterministic).

The layouts follow the documented schemas: `az vm list-skus --output json` (Resource SKUs
API, "Resource Skus - List": name, tier, size, family, locations, locationInfo, capabilities
name/value pairs, restrictions with type Location/Zone, reasonCode, restrictionInfo) and the
Azure Retail Prices API (learn.microsoft.com/rest/api/cost-management/retail-prices/
azure-retail-prices: Items[] with currencyCode, tierMinimumUnits, retailPrice, unitPrice,
armRegionName, location, effectiveStartDate, meterId, meterName, productId, skuId,
productName, skuName, serviceName, serviceId, serviceFamily, unitOfMeasure, type,
reservationTerm, isPrimaryMeterRegion, armSkuName; NextPageLink; Count).

The regions are westus3 and northeurope, which the embedded catalog does not price, so a plan
over these samples sees only their prices. The NUMBERS ARE ILLUSTRATIVE (chosen so that the
cheapest design changes with the region and the way of paying), not Azure's prices or limits.
"""
import hashlib
import json
import pathlib

HERE = pathlib.Path(__file__).parent
REGIONS = ["westus3", "northeurope"]


def caps(**pairs):
    return [{"name": k, "value": str(v)} for k, v in pairs.items()]


def vm(name, family, vcpu, mem, disks, iops, bytes_s, zones=("1", "2", "3"), restrictions=()):
    return {
        "apiVersions": None,
        "capabilities": caps(
            MaxResourceVolumeMB=0,
            OSVhdSizeMB=1047552,
            vCPUs=vcpu,
            MemoryPreservingMaintenanceSupported="True",
            HyperVGenerations="V1,V2",
            MemoryGB=mem,
            MaxDataDiskCount=disks,
            CpuArchitectureType="x64",
            LowPriorityCapable="True",
            PremiumIO="True",
            VMDeploymentTypes="IaaS",
            vCPUsAvailable=vcpu,
            ACUs=195,
            vCPUsPerCore=2,
            CombinedTempDiskAndCachedIOPS=0 if "d" not in name.split("_")[1][1:] else iops * 2,
            UncachedDiskIOPS=iops,
            UncachedDiskBytesPerSecond=bytes_s,
            EphemeralOSDiskSupported="False",
            EncryptionAtHostSupported="True",
            CapacityReservationSupported="False",
            AcceleratedNetworkingEnabled="True",
            RdmaEnabled="False",
            MaxNetworkInterfaces=2,
            UltraSSDAvailable="True",
        ),
        "capacity": None,
        "costs": None,
        "family": family,
        "kind": None,
        "locationInfo": [
            {"location": r, "zoneDetails": [], "zones": list(zones)} for r in REGIONS
        ],
        "locations": REGIONS,
        "name": name,
        "resourceType": "virtualMachines",
        "restrictions": list(restrictions),
        "size": name.split("_", 1)[1],
        "tier": "Standard",
    }


def restriction(kind, region, zones=None):
    return {
        "reasonCode": "NotAvailableForSubscription",
        "restrictionInfo": {"locations": [region], "zones": zones},
        "type": kind,
        "values": [region],
    }


VMS = [
    vm("Standard_D4s_v5", "standardDSv5Family", 4, 16, 8, 6400, 145_000_000),
    vm("Standard_D4as_v5", "standardDASv5Family", 4, 16, 8, 6400, 144_000_000,
       restrictions=[restriction("Location", "northeurope")]),
    vm("Standard_E4s_v5", "standardESv5Family", 4, 32, 8, 6400, 145_000_000,
       restrictions=[restriction("Zone", "westus3", ["2"])]),
    vm("Standard_E8as_v5", "standardEASv5Family", 8, 64, 16, 12800, 200_000_000,
       restrictions=[restriction("Zone", "westus3", ["1", "2", "3"])]),
]


def disk(tier, size, gib, iops, mb, burst=None):
    pairs = dict(MaxSizeGiB=gib, MinSizeGiB=gib // 2, MaxIOps=iops, MinIOps=iops,
                 MaxBandwidthMBps=mb, MinBandwidthMBps=mb, MaxValueOfMaxShares=1)
    if burst:
        pairs.update(MaxBurstIops=burst[0], MaxBurstBandwidthMBps=burst[1])
    return {
        "apiVersions": None, "capabilities": caps(**pairs), "capacity": None, "costs": None,
        "family": None, "kind": None,
        "locationInfo": [{"location": r, "zoneDetails": [], "zones": []} for r in REGIONS],
        "locations": REGIONS, "name": tier, "resourceType": "disks", "restrictions": [],
        "size": size, "tier": tier.split("_")[0].replace("SSD", ""),
    }


DISKS = [
    disk("Premium_LRS", "P10", 128, 500, 100, (3500, 170)),
    disk("Premium_LRS", "P20", 512, 2300, 150, (3500, 170)),
    disk("Premium_LRS", "P30", 1024, 5000, 200),
    disk("Premium_ZRS", "P30", 1024, 5000, 200),
    disk("UltraSSD_LRS", "Ultra", 65536, 400000, 10000),
]


def item(region, arm_sku, product, sku, meter, price, unit, kind="Consumption", term=None,
         service="Virtual Machines", primary=True):
    row = {
        "currencyCode": "USD",
        "tierMinimumUnits": 0.0,
        "retailPrice": price,
        "unitPrice": price,
        "armRegionName": region,
        "location": {"westus3": "US West 3", "northeurope": "EU North"}[region],
        "effectiveStartDate": "2026-10-01T00:00:00Z",
        "meterId": "00000000-0000-0000-0000-"
        + hashlib.sha256(repr((region, arm_sku, product, sku, kind, term)).encode()).hexdigest()[:12],
        "meterName": meter,
        "productId": "DZH318Z0SAMPLE",
        "skuId": "DZH318Z0SAMPLE/0001",
        "productName": product,
        "skuName": sku,
        "serviceName": service,
        "serviceId": "DZH313Z7MMC8",
        "serviceFamily": "Compute" if service == "Virtual Machines" else "Storage",
        "unitOfMeasure": unit,
        "type": kind,
        "isPrimaryMeterRegion": primary,
        "armSkuName": arm_sku,
    }
    if term:
        row["reservationTerm"] = term
    return row


# (payg linux per hour, payg windows per hour, 1-year term total, 3-year term total)
VM_PRICES = {
    "westus3": {
        "Standard_D4s_v5": (0.192, 0.376, 1030.0, 1960.0),
        "Standard_D4as_v5": (0.172, 0.356, 1060.0, 2250.0),
        "Standard_E4s_v5": (0.252, 0.436, 1300.0, 2600.0),
        "Standard_E8as_v5": (0.452, 0.820, 2600.0, 5000.0),
    },
    "northeurope": {
        "Standard_D4s_v5": (0.209, 0.393, 1110.0, 2120.0),
        "Standard_D4as_v5": (0.188, 0.372, 1150.0, 2400.0),
        "Standard_E4s_v5": (0.272, 0.456, 1400.0, 2750.0),
    },
}
DISK_PRICES = {"westus3": {"P10": 19.71, "P20": 73.22, "P30": 135.17},
               "northeurope": {"P10": 20.30, "P20": 75.44, "P30": 139.28}}


def vm_items(region):
    items = []
    for arm, (linux, windows, ri1, ri3) in VM_PRICES[region].items():
        size = arm.split("_", 1)[1].replace("_", " ")
        series = "Virtual Machines " + size.split(" ")[0][:1] + "sv5 Series"
        items += [
            item(region, arm, series, size, size, linux, "1 Hour"),
            item(region, arm, series + " Windows", size, size, windows, "1 Hour"),
            item(region, arm, series, size + " Spot", size + " Spot", round(linux / 8, 4), "1 Hour"),
            item(region, arm, series, size + " Low Priority", size + " Low Priority",
                 round(linux / 5, 4), "1 Hour"),
            item(region, arm, series, size, size, ri1, "1 Hour", "Reservation", "1 Year"),
            item(region, arm, series, size, size, ri3, "1 Hour", "Reservation", "3 Years"),
            item(region, arm, series, size, size, linux, "1 Hour", "DevTestConsumption"),
        ]
    return items


def disk_items(region):
    return [
        item(region, f"Premium_SSD_Managed_Disk_{tier}", "Premium SSD Managed Disks",
             f"{tier} LRS", f"{tier} LRS Disk", price, "1/Month", service="Storage")
        for tier, price in DISK_PRICES[region].items()
    ] + [
        item(region, "", "Premium SSD Managed Disks", "P30 LRS", "Disk Operations", 0.0005,
             "10K", service="Storage"),
    ]


def page(items, next_link):
    return {"BillingCurrency": "USD", "CustomerEntityId": "Default",
            "CustomerEntityType": "Retail", "Items": items, "NextPageLink": next_link,
            "Count": len(items)}


def write(name, value):
    (HERE / name).write_text(json.dumps(value, indent=2) + "\n")


write("list-skus-vms.json", VMS)
write("list-skus-disks.json", DISKS)
write("retail-prices-westus3.json",
      page(vm_items("westus3") + disk_items("westus3"),
           "https://prices.azure.com/api/retail/prices?$filter=armRegionName%20eq%20%27northeurope%27&$skip=100"))
write("retail-prices-northeurope.json", page(vm_items("northeurope") + disk_items("northeurope"), None))
