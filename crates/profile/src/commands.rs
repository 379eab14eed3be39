//! The commands that make the captures iofit reads, quoted in the parsers' errors and in the
//! capture notes (here, so that the notes need no parser and the parsers can use the notes).

/// The command whose output [`crate::azure::parse_azure_json`] reads.
pub const AZ_COMMAND: &str = "`az monitor metrics list --resource VM_RESOURCE_ID --metric \
\"Data Disk Read Bytes/sec\" \"Data Disk Write Bytes/sec\" \"Data Disk Read Operations/Sec\" \
\"Data Disk Write Operations/Sec\" \"Data Disk Queue Depth\" \"Data Disk IOPS Consumed Percentage\" \
\"Data Disk Bandwidth Consumed Percentage\" \"OS Disk Read Bytes/sec\" \"OS Disk Write Bytes/sec\" \
\"OS Disk Read Operations/Sec\" \"OS Disk Write Operations/Sec\" \"VM Cached IOPS Consumed Percentage\" \
\"VM Cached Bandwidth Consumed Percentage\" \"VM Uncached IOPS Consumed Percentage\" \
\"VM Uncached Bandwidth Consumed Percentage\" \"Percentage CPU\" --dimension LUN --interval PT1M \
--aggregation Average Maximum --start-time START --end-time END --output json > metrics.json` \
(one call takes up to 20 metric names; run it twice and give both files if needed)";

/// The PerfMon command that captures what a requirement needs.
pub const BYTES_COMMAND: &str = "`typeperf \"\\PhysicalDisk(*)\\Disk Reads/sec\" \
\"\\PhysicalDisk(*)\\Disk Writes/sec\" \"\\PhysicalDisk(*)\\Disk Read Bytes/sec\" \
\"\\PhysicalDisk(*)\\Disk Write Bytes/sec\" \"\\PhysicalDisk(*)\\Avg. Disk sec/Read\" \
\"\\PhysicalDisk(*)\\Avg. Disk sec/Write\" \"\\PhysicalDisk(*)\\Current Disk Queue Length\" \
-si 15 -sc 5760 -f CSV -o perf.csv` (24 hours at 15 s)";
