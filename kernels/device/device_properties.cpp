// The device lesson's property groups: CUDA's raw numbers, each labelled and explained for a
// learner, in five groups (identity, compute, memory, transfers, limits), one function each. Pure:
// tested on canned numbers without a GPU (device_query.cpp asks CUDA for them).
//
// [SECTION] Formatting helpers
// [SECTION] Property groups   (describeProperties, one function per group, makeDeviceInfo)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>

#include "common/format.hpp"
#include "common/translatable.hpp"
#include "device/device_internal.hpp"
#include "device/device_query.hpp"

namespace cudalab::device {

// ---------------------------------------------------------------------------------------------
// [SECTION] Formatting helpers
// ---------------------------------------------------------------------------------------------

// Binary units, because CUDA sizes (shared memory, L2, allocations) are powers of two:
// 49152 -> "48 KiB", 85045870592 -> "79.2 GiB".
std::string formatBytes(double bytes) {
  constexpr double kKiB = 1024.0, kMiB = kKiB * 1024.0, kGiB = kMiB * 1024.0;
  if (bytes >= kGiB) return trimmedFixed(bytes / kGiB, 1) + " GiB";
  if (bytes >= kMiB) return trimmedFixed(bytes / kMiB, 1) + " MiB";
  if (bytes >= kKiB) return trimmedFixed(bytes / kKiB, 1) + " KiB";
  return trimmedFixed(bytes, 0) + (bytes == 1 ? " byte" : " bytes");
}

std::string hex(unsigned v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*x", digits, v);
  return buf;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string formatClock(double kHz) {
  if (!(kHz > 0)) return N_("not reported");
  return trimmedFixed(kHz / 1000.0, 1) + " MHz";
}

// Builders for one property. Each takes the help text last, so the tables below read as
// key, label, value, explanation.
DeviceProperty textProp(std::string key, std::string label, std::string value, std::string help) {
  return {std::move(key), std::move(label), std::move(value), kNaN, std::move(help)};
}

DeviceProperty countProp(std::string key, std::string label, double v, std::string help,
                         const char* unit = "") {
  std::string value = trimmedFixed(v, 0);
  if (*unit) value += std::string(" ") + unit;
  return {std::move(key), std::move(label), std::move(value), v, std::move(help)};
}

DeviceProperty bytesProp(std::string key, std::string label, double v, std::string help) {
  return {std::move(key), std::move(label), formatBytes(v), v, std::move(help)};
}

DeviceProperty flagProp(std::string key, std::string label, bool v, std::string help) {
  return {std::move(key), std::move(label), v ? N_("yes") : N_("no"), v ? 1.0 : 0.0,
          std::move(help)};
}

DeviceProperty clockProp(std::string key, std::string label, double kHz, std::string help) {
  return {std::move(key), std::move(label), formatClock(kHz), kHz, std::move(help)};
}

// "1024 x 1024 x 64"; the number is NaN and the dimensions go to `dims` (a JSON array).
DeviceProperty dimsProp(std::string key, std::string label, std::initializer_list<int> d,
                        std::string help) {
  DeviceProperty p{std::move(key), std::move(label), "", kNaN, std::move(help)};
  for (int v : d) {
    if (!p.value.empty()) p.value += " x ";
    p.value += std::to_string(v);
    p.dims.push_back(v);
  }
  return p;
}

std::string computeModeText(int mode) {
  switch (mode) {
    case 0:
      return N_("default (shared)");
    case 1:
      return N_("exclusive thread");
    case 2:
      return N_("prohibited");
    case 3:
      return N_("exclusive process");
    default:
      return "unknown (" + std::to_string(mode) + ")";
  }
}

// cudaMemAllocationHandleType bits: 1 POSIX file descriptor, 2 Win32, 4 Win32 KMT, 8 fabric.
std::string handleTypesText(unsigned mask) {
  if (mask == 0) return N_("none");
  std::string s;
  const std::pair<unsigned, const char*> names[] = {
      {0x1, "POSIX file descriptor"}, {0x2, "Win32 handle"}, {0x4, "Win32 KMT"}, {0x8, "fabric"}};
  for (auto [bit, name] : names) {
    if (mask & bit) s += (s.empty() ? "" : ", ") + std::string(name);
  }
  if (mask & ~0xFu) s += (s.empty() ? "" : ", ") + std::string("other (0x") + hex(mask, 1) + ")";
  return s;
}

// "10de:2330" from CUDA's combined (id << 16 | vendor) value, "not reported" when 0.
std::string pciIdText(unsigned combined) {
  if (combined == 0) return N_("not reported");
  return hex(combined & 0xFFFFu, 4) + ":" + hex(combined >> 16, 4);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Property groups
// ---------------------------------------------------------------------------------------------

// Identity: which GPU this is and how the system shares it.
PropertyGroup identityGroup(const RawDeviceNumbers& r, const std::optional<ArchInfo>& arch,
                            const std::string& unknownArch) {
  PropertyGroup g{kGroupIdentity, {}};
  auto& p = g.properties;
  p.push_back(
      textProp("name", N_("Name"), r.name,
               N_("The product name the driver reports. Several products can share one chip; "
                  "the compute capability below says what the chip can do.")));
  p.push_back({"compute_capability", N_("Compute capability"),
               computeCapabilityString(r.major, r.minor), r.major + r.minor / 10.0,
               N_("The version of the GPU's instruction set and features (major.minor). nvcc "
                  "compiles for it with -arch=sm_XY; a kernel built only for a newer compute "
                  "capability will not load on this GPU.")});
  p.push_back(textProp("architecture", N_("Architecture"), arch ? arch->family : unknownArch,
                       N_("The hardware generation behind the compute capability. CUDA does not "
                          "report it; cudalab looks it up in its own table.")));
  p.push_back(
      textProp("example_products", N_("Products with this compute capability"),
               arch ? arch->examples : N_("unknown"),
               N_("Other GPUs built on the same SM design: they run the same compiled code, "
                  "though with different numbers of SMs, clocks and memory.")));
  p.push_back(textProp("uuid", N_("UUID"), r.uuid.empty() ? N_("not reported") : r.uuid,
                       N_("A unique identifier of this physical GPU, the same one nvidia-smi -L "
                          "prints. Use it (through CUDA_VISIBLE_DEVICES) to pick a GPU reliably, "
                          "because device numbers can change between machines and boots.")));
  char pci[48];
  std::snprintf(pci, sizeof pci, "%04x:%02x:%02x.0", unsigned(r.pciDomainId), unsigned(r.pciBusId),
                unsigned(r.pciDeviceId));
  p.push_back(
      textProp("pci_location", N_("PCI location (domain:bus:device)"), pci,
               N_("Where the GPU sits on the PCI Express bus, as lspci and nvidia-smi print "
                  "it. It tells two identical GPUs apart.")));
  p.push_back(
      countProp("pci_domain_id", N_("PCI domain"), r.pciDomainId,
                N_("The PCI domain (segment) of the GPU; 0 on most single-socket machines.")));
  p.push_back(countProp("pci_bus_id", N_("PCI bus"), r.pciBusId,
                        N_("The PCI bus number of the GPU. GPUs on buses attached to different CPU "
                           "sockets see host memory at different speeds.")));
  p.push_back(countProp("pci_device_id", N_("PCI device"), r.pciDeviceId,
                        N_("The PCI device number of the GPU on its bus.")));
  p.push_back({"pci_vendor_device", N_("PCI vendor:device id"), pciIdText(r.gpuPciDeviceId),
               r.gpuPciDeviceId ? double(r.gpuPciDeviceId) : kNaN,
               N_("The PCI identifiers of the chip: vendor 10de is NVIDIA, the device id names "
                  "the exact chip and board variant.")});
  p.push_back({"pci_subsystem", N_("PCI subsystem id"), pciIdText(r.gpuPciSubsystemId),
               r.gpuPciSubsystemId ? double(r.gpuPciSubsystemId) : kNaN,
               N_("Who built the board (subsystem vendor) and which board it is.")});
  p.push_back(
      flagProp("integrated", N_("Integrated GPU"), r.integrated,
               N_("Yes when the GPU shares the CPU's memory (Jetson, DGX Spark). Then copying "
                  "between host and device buys nothing: the memory is the same.")));
  p.push_back(
      flagProp("tcc_driver", N_("TCC driver (Windows)"), r.tccDriver,
               N_("On Windows, yes when the GPU runs the compute-only TCC driver instead of "
                  "the display driver: no display watchdog and lower launch overhead.")));
  p.push_back(
      flagProp("multi_gpu_board", N_("Multi-GPU board"), r.multiGpuBoard,
               N_("Yes when this GPU shares a board with others (such as the Tesla K80's two "
                  "GPUs), which then share the board's power and PCI link.")));
  p.push_back(countProp("multi_gpu_board_group_id", N_("Multi-GPU board group"),
                        r.multiGpuBoardGroupId,
                        N_("GPUs on the same multi-GPU board report the same group number.")));
  p.push_back({"compute_mode", N_("Compute mode"), computeModeText(r.computeMode),
               double(r.computeMode),
               N_("Set by the administrator with nvidia-smi -c. Default lets many processes "
                  "share the GPU; exclusive process allows one process at a time; prohibited "
                  "allows none, so CUDA programs fail to create a context.")});
  p.push_back(
      flagProp("mps_enabled", N_("MPS enabled"), r.mpsEnabled,
               N_("Yes when CUDA contexts on this GPU go through the Multi-Process Service, "
                  "which lets kernels from several processes run at the same time.")));
  return g;
}

// Compute: how much parallel hardware there is and how a launch maps onto it.
PropertyGroup computeGroup(const RawDeviceNumbers& r, const std::optional<ArchInfo>& arch) {
  PropertyGroup g{kGroupCompute, {}};
  auto& p = g.properties;
  p.push_back(
      countProp("multiprocessor_count", N_("Multiprocessors (SMs)"), r.multiProcessorCount,
                N_("Streaming multiprocessors: the GPU's cores in the CPU sense. Each block of "
                   "a launch runs on one SM, so a grid needs at least this many blocks (better "
                   "several times more) to keep the whole GPU busy.")));
  const bool coresKnown = arch && arch->fp32CoresPerSM > 0;
  p.push_back(
      coresKnown
          ? countProp("fp32_cores_per_sm", N_("FP32 cores per SM"), arch->fp32CoresPerSM,
                      N_("Lanes that each finish one float multiply-add per clock; NVIDIA "
                         "calls them CUDA cores. CUDA does not report this number: it follows "
                         "from the compute capability."))
          : textProp("fp32_cores_per_sm", N_("FP32 cores per SM"), N_("unknown"),
                     N_("Lanes that each finish one float multiply-add per clock. CUDA does "
                        "not report this number and this build's table does not know this "
                        "compute capability, so it is shown as unknown rather than guessed.")));
  p.push_back(
      coresKnown
          ? countProp("cuda_cores", N_("CUDA cores (total FP32)"),
                      double(r.multiProcessorCount) * arch->fp32CoresPerSM,
                      N_("SMs x FP32 cores per SM: how many float operations can start each clock. "
                         "A warp of 32 threads uses 32 of them for one instruction."))
          : textProp("cuda_cores", N_("CUDA cores (total FP32)"), N_("unknown"),
                     N_("SMs x FP32 cores per SM; unknown because the cores per SM are unknown.")));
  const bool fp64Known = arch && arch->fp64UnitsPerSM > 0;
  p.push_back(
      fp64Known ? countProp("fp64_units_per_sm", N_("FP64 units per SM"), arch->fp64UnitsPerSM,
                            N_("Lanes that finish one double multiply-add per clock. Data-centre "
                               "GPUs have many (64 on Hopper); graphics GPUs only 2, so double "
                               "precision there is dozens of times slower than float."))
                : textProp("fp64_units_per_sm", N_("FP64 units per SM"), N_("unknown"),
                           N_("Lanes that finish one double multiply-add per clock; not known for "
                              "this compute capability.")));
  p.push_back(textProp("fp64_to_fp32_ratio", N_("FP64 : FP32 throughput"),
                       arch ? fp64RatioText(*arch) : N_("unknown"),
                       N_("How many double operations finish for each float operation, from the "
                          "table above. 1:2 means doubles cost twice as much; 1:64 means a float32 "
                          "kernel can be 64 times faster.")));
  p.push_back(countProp("single_to_double_perf_ratio", N_("Single-to-double ratio (reported)"),
                        r.singleToDoublePerfRatio,
                        N_("The driver's own figure for float vs double throughput (2 means floats "
                           "are twice as fast). It can differ from the table when a product limits "
                           "FP64 below what its chip has.")));
  p.push_back(clockProp("clock_rate", N_("GPU clock (max boost)"), r.clockKHz,
                        N_("The highest clock the SMs run at; under load the GPU may run lower to "
                           "stay within power and temperature. Peak FLOP/s use this clock, so they "
                           "are an upper bound.")));
  p.push_back(countProp("warp_size", N_("Warp size"), r.warpSize,
                        N_("Threads that execute one instruction together. Make block sizes a "
                           "multiple of it; when threads of a warp take different branches, the "
                           "warp runs both paths one after the other."),
                        "threads"));
  p.push_back(countProp("max_threads_per_block", N_("Max threads per block"), r.maxThreadsPerBlock,
                        N_("The largest blockDim.x * blockDim.y * blockDim.z a launch may use; a "
                           "larger block fails with 'invalid configuration argument'.")));
  p.push_back(
      countProp("max_threads_per_multiprocessor", N_("Max resident threads per SM"),
                r.maxThreadsPerMultiProcessor,
                N_("How many threads one SM can hold at once. Occupancy is the fraction of "
                   "this a kernel achieves; more resident threads hide more memory latency.")));
  if (r.warpSize > 0) {
    p.push_back(countProp("max_warps_per_multiprocessor", N_("Max resident warps per SM"),
                          r.maxThreadsPerMultiProcessor / r.warpSize,
                          N_("Resident threads divided by the warp size: the warps an SM's "
                             "schedulers can switch between to hide latency.")));
  }
  p.push_back(countProp("max_blocks_per_multiprocessor", N_("Max resident blocks per SM"),
                        r.maxBlocksPerMultiProcessor,
                        N_("How many blocks one SM can hold at once. Very small blocks hit this "
                           "limit before the thread limit, leaving the SM partly empty.")));
  p.push_back(
      dimsProp("max_block_dim", N_("Max block dimensions (x, y, z)"),
               {r.maxBlockDim[0], r.maxBlockDim[1], r.maxBlockDim[2]},
               N_("The largest blockDim in each direction. The product must also stay within "
                  "max threads per block, so 1024 x 1024 x 64 is not allowed as a whole.")));
  p.push_back(
      dimsProp("max_grid_dim", N_("Max grid dimensions (x, y, z)"),
               {r.maxGridDim[0], r.maxGridDim[1], r.maxGridDim[2]},
               N_("The largest gridDim in each direction. x is large enough for almost any "
                  "1D problem; y and z are limited to 65535, so big 2D problems put the long "
                  "side in x or use a grid-stride loop.")));
  p.push_back(countProp("regs_per_block", N_("Registers per block"), r.regsPerBlock,
                        N_("32-bit registers all threads of one block may use together. A kernel "
                           "using 64 registers per thread can launch at most this / 64 threads per "
                           "block.")));
  p.push_back(
      countProp("regs_per_multiprocessor", N_("Registers per SM"), r.regsPerMultiprocessor,
                N_("32-bit registers shared by all resident threads of an SM: registers per "
                   "thread x resident threads must fit, so heavy register use lowers "
                   "occupancy. nvcc --resource-usage shows a kernel's count.")));
  p.push_back(flagProp("concurrent_kernels", N_("Concurrent kernels"), r.concurrentKernels,
                       N_("Yes when kernels launched into different streams can run at the same "
                          "time, filling SMs that one small kernel leaves idle.")));
  p.push_back(
      flagProp("cooperative_launch", N_("Cooperative launch"), r.cooperativeLaunch,
               N_("Yes when cudaLaunchCooperativeKernel is available: all blocks of the grid "
                  "are resident at once, so they can synchronize with grid.sync().")));
  p.push_back(
      flagProp("cluster_launch", N_("Thread block clusters"), r.clusterLaunch,
               N_("Yes on Hopper and newer: blocks can be grouped into clusters that run on "
                  "neighbouring SMs and read each other's shared memory.")));
  p.push_back(flagProp("compute_preemption", N_("Compute preemption"), r.computePreemption,
                       N_("Yes when the GPU can pause a running kernel to run other work (a "
                          "display, a debugger) and resume it later.")));
  p.push_back(flagProp("stream_priorities", N_("Stream priorities"), r.streamPriorities,
                       N_("Yes when streams can be created with a priority, so urgent kernels get "
                          "SMs before those already queued.")));
  p.push_back(countProp("mem_sync_domain_count", N_("Memory synchronization domains"),
                        r.memSyncDomainCount,
                        N_("Hopper and newer can keep the memory fences of unrelated kernels (for "
                           "example communication and compute) from waiting on each other.")));
  return g;
}

// Memory: how much there is, how fast, and which caches sit in front of it.
PropertyGroup memoryGroup(const RawDeviceNumbers& r) {
  PropertyGroup g{kGroupMemory, {}};
  auto& p = g.properties;
  p.push_back(
      bytesProp("total_global_memory", N_("Global memory (total)"), double(r.totalGlobalMem),
                N_("The GPU's own DRAM (HBM or GDDR), where cudaMalloc allocates. Everything "
                   "a kernel reads and writes in bulk lives here.")));
  p.push_back(bytesProp("free_global_memory", N_("Global memory (free now)"),
                        double(r.freeGlobalMem),
                        N_("What cudaMemGetInfo reported at query time: total minus what this and "
                           "other processes hold and what the driver keeps. An allocation larger "
                           "than this fails with 'out of memory'.")));
  p.push_back(countProp("memory_bus_width", N_("Memory bus width"), r.memoryBusWidthBits,
                        N_("Bits moved per memory transfer. Together with the memory clock it sets "
                           "the peak bandwidth, which bounds every kernel that streams through "
                           "memory."),
                        "bit"));
  p.push_back(clockProp("memory_clock", N_("Memory clock (peak)"), r.memClockKHz,
                        N_("The DRAM clock as CUDA reports it; data moves twice per clock, so peak "
                           "bandwidth is 2 x clock x bus width / 8.")));
  p.push_back(bytesProp("l2_cache_size", N_("L2 cache"), r.l2CacheBytes,
                        N_("The cache all SMs share in front of global memory. Data that fits here "
                           "is re-read much faster than DRAM, which is why honest bandwidth tests "
                           "use buffers several times larger.")));
  p.push_back(
      bytesProp("persisting_l2_cache_max", N_("Persisting L2 (max)"), r.persistingL2CacheMaxBytes,
                N_("The part of L2 that can be set aside (cudaLimitPersistingL2CacheSize) "
                   "for data a stream marks as frequently reused, so streaming data does not "
                   "evict it.")));
  p.push_back(bytesProp("access_policy_max_window", N_("Access policy window (max)"),
                        r.accessPolicyMaxWindowBytes,
                        N_("The largest address range one stream or graph node can mark as "
                           "persisting in L2 (cudaAccessPolicyWindow::num_bytes).")));
  p.push_back(bytesProp("shared_mem_per_block", N_("Shared memory per block"),
                        double(r.sharedMemPerBlock),
                        N_("Fast on-chip memory a block can declare without asking (static "
                           "__shared__ arrays). Tiled kernels stage data here to reuse it across "
                           "threads.")));
  p.push_back(
      bytesProp("shared_mem_per_block_optin", N_("Shared memory per block (opt-in)"),
                double(r.sharedMemPerBlockOptin),
                N_("The most shared memory one block can have after calling "
                   "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                   "bytes). Launches that ask for more without opting in fail.")));
  p.push_back(bytesProp("shared_mem_per_multiprocessor", N_("Shared memory per SM"),
                        double(r.sharedMemPerMultiprocessor),
                        N_("Shared memory available to all resident blocks of one SM together: a "
                           "block using a lot of it leaves room for fewer blocks, lowering "
                           "occupancy.")));
  p.push_back(
      bytesProp("reserved_shared_mem_per_block", N_("Shared memory reserved per block"),
                double(r.reservedSharedMemPerBlock),
                N_("Shared memory the driver keeps for itself in every block; count it when "
                   "working out how many blocks fit on an SM.")));
  p.push_back(
      bytesProp("total_constant_memory", N_("Constant memory"), double(r.totalConstMem),
                N_("Read-only __constant__ memory, cached so that all threads of a warp "
                   "reading the same address get it in one access; different addresses in a "
                   "warp are served one after the other.")));
  p.push_back(flagProp("global_l1_cache", N_("L1 caches global loads"), r.globalL1Cache,
                       N_("Yes when loads from global memory are cached in each SM's L1, which "
                          "helps neighbouring threads that read the same lines.")));
  p.push_back(flagProp("local_l1_cache", N_("L1 caches local memory"), r.localL1Cache,
                       N_("Yes when local memory (register spills, per-thread arrays) is cached in "
                          "L1, softening the cost of spilling.")));
  p.push_back(
      flagProp("ecc_enabled", N_("ECC enabled"), r.eccEnabled,
               N_("Yes when error-correcting codes protect the memory. Data-centre GPUs "
                  "turn it on; on some older GPUs it costs a little capacity and bandwidth.")));
  p.push_back(flagProp("unified_addressing", N_("Unified addressing"), r.unifiedAddressing,
                       N_("Yes when host and device pointers share one address space, so "
                          "cudaMemcpyDefault can tell from a pointer where it points.")));
  p.push_back(
      flagProp("managed_memory", N_("Managed memory"), r.managedMemory,
               N_("Yes when cudaMallocManaged works: one pointer usable on host and device, "
                  "with pages migrating to whichever side touches them.")));
  p.push_back(flagProp(
      "concurrent_managed_access", N_("Concurrent managed access"), r.concurrentManagedAccess,
      N_("Yes when the CPU and GPU may touch managed memory at the same time and "
         "pages migrate on demand (page faults); without it the CPU must not touch "
         "managed memory while a kernel runs.")));
  p.push_back(flagProp("direct_managed_mem_access_from_host",
                       N_("Host reads managed memory directly"), r.directManagedMemAccessFromHost,
                       N_("Yes when the CPU can read managed memory that lives on the GPU without "
                          "migrating it (coherent links such as Grace Hopper's NVLink-C2C).")));
  p.push_back(flagProp("pageable_memory_access", N_("Pageable memory access"),
                       r.pageableMemoryAccess,
                       N_("Yes when kernels can dereference ordinary malloc'd host pointers "
                          "directly, without cudaHostRegister or managed memory.")));
  p.push_back(flagProp("pageable_memory_access_uses_host_page_tables",
                       N_("Pageable access uses host page tables"),
                       r.pageableMemoryAccessUsesHostPageTables,
                       N_("Yes when the GPU walks the CPU's own page tables to reach host memory "
                          "(ATS on coherent systems), rather than the driver migrating pages.")));
  p.push_back(
      flagProp("memory_pools_supported", N_("Memory pools"), r.memoryPoolsSupported,
               N_("Yes when cudaMallocAsync and cudaFreeAsync work: allocation ordered in a "
                  "stream from a pool, much cheaper than cudaMalloc inside a loop.")));
  p.push_back({"memory_pool_handle_types", N_("Memory pool export handles"),
               handleTypesText(r.memoryPoolSupportedHandleTypes),
               double(r.memoryPoolSupportedHandleTypes),
               N_("How pool allocations can be shared with other processes (IPC).")});
  p.push_back({"numa_config", N_("GPU memory is a NUMA node"), r.numaConfig ? N_("yes") : N_("no"),
               double(r.numaConfig),
               N_("Yes on coherent systems (Grace Hopper) where the operating system sees GPU "
                  "memory as a NUMA node that ordinary allocations can land in.")});
  p.push_back(countProp("numa_id", N_("GPU memory NUMA node"), r.numaId,
                        N_("The NUMA node number of the GPU memory, or -1 when it is not one.")));
  p.push_back(countProp("host_numa_id", N_("Nearest host NUMA node"), r.hostNumaId,
                        N_("The CPU memory node closest to this GPU (-1 when the system has no "
                           "NUMA). Pinning host buffers there makes transfers faster on "
                           "multi-socket machines.")));
  return g;
}

// Transfers: moving data between host and device.
PropertyGroup transfersGroup(const RawDeviceNumbers& r) {
  PropertyGroup g{kGroupTransfers, {}};
  auto& p = g.properties;
  p.push_back(countProp("async_engine_count", N_("Copy engines"), r.asyncEngineCount,
                        N_("DMA engines that copy between host and device while kernels run. With "
                           "two or more, a copy to the device, a kernel and a copy back can all "
                           "overlap in different streams (with pinned memory).")));
  p.push_back(
      flagProp("can_map_host_memory", N_("Can map host memory"), r.canMapHostMemory,
               N_("Yes when pinned host memory can be mapped into the device's address space "
                  "(zero-copy): kernels then read host memory over the bus directly.")));
  p.push_back(flagProp("host_register_supported", N_("cudaHostRegister supported"),
                       r.hostRegisterSupported,
                       N_("Yes when existing host memory can be pinned after the fact, so copies "
                          "from it run at full speed without a staging copy.")));
  p.push_back(
      flagProp("host_register_read_only_supported", N_("Read-only host registration"),
               r.hostRegisterReadOnlySupported,
               N_("Yes when cudaHostRegisterReadOnly can pin memory the GPU may only read.")));
  p.push_back(flagProp("can_use_host_pointer_for_registered_mem",
                       N_("Registered memory keeps its host address"),
                       r.canUseHostPointerForRegisteredMem,
                       N_("Yes when the device can use the same pointer value as the host for "
                          "registered memory, so no cudaHostGetDevicePointer is needed.")));
  p.push_back(flagProp("gpu_overlap", N_("Copy and kernel overlap"), r.gpuOverlap,
                       N_("Yes when the device can copy memory while a kernel runs (the older form "
                          "of the copy engine count).")));
  p.push_back(flagProp(
      "kernel_exec_timeout", N_("Kernel run-time limit (display watchdog)"), r.kernelExecTimeout,
      N_("Yes when the GPU also drives a display and the operating system kills "
         "kernels that run longer than a few seconds. Long experiments belong on a "
         "GPU without a display, or in shorter launches.")));
  p.push_back(flagProp("host_native_atomics", N_("Native atomics with the host"),
                       r.hostNativeAtomics,
                       N_("Yes when the link to the CPU supports atomic operations natively "
                          "(NVLink-C2C), so system-scope atomics on host memory are fast.")));
  p.push_back(flagProp("gpudirect_rdma_supported", N_("GPUDirect RDMA"), r.gpuDirectRdmaSupported,
                       N_("Yes when network cards and other PCI devices can read and write this "
                          "GPU's memory directly, without a copy through host memory.")));
  return g;
}

// Limits and other features: texture/surface sizes, alignments, the rest.
PropertyGroup limitsGroup(const RawDeviceNumbers& r) {
  PropertyGroup g{kGroupLimits, {}};
  auto& p = g.properties;
  p.push_back(
      bytesProp("max_pitch", N_("Max pitch (cudaMallocPitch/cudaMemcpy2D)"), double(r.memPitch),
                N_("The widest row in bytes that pitched allocations and 2D copies accept.")));
  p.push_back(bytesProp("texture_alignment", N_("Texture alignment"), double(r.textureAlignment),
                        N_("Texture base addresses must be aligned to this; cudaMalloc pointers "
                           "always are.")));
  p.push_back(bytesProp(
      "texture_pitch_alignment", N_("Texture pitch alignment"), double(r.texturePitchAlignment),
      N_("The row pitch of a 2D texture bound to linear memory must be a multiple "
         "of this; cudaMallocPitch picks a suitable pitch.")));
  p.push_back(bytesProp("surface_alignment", N_("Surface alignment"), double(r.surfaceAlignment),
                        N_("The alignment surfaces (writable textures) need.")));
  const char* texHelp =
      N_("The largest texture of this shape, in texels. Textures give cached, filtered, "
         "bounds-handled reads of images; the limits matter for large images and volumes.");
  const char* surfHelp =
      N_("The largest surface of this shape, in elements. Surfaces let kernels write to CUDA "
         "arrays, for example images shared with OpenGL.");
  p.push_back(countProp("max_texture_1d", N_("Max texture 1D"), r.maxTexture1D, texHelp));
  p.push_back(countProp("max_texture_1d_mipmap", N_("Max texture 1D (mipmapped)"),
                        r.maxTexture1DMipmap, texHelp));
  p.push_back(countProp("max_texture_1d_linear", N_("Max texture 1D (linear memory)"),
                        r.maxTexture1DLinear,
                        N_("The most elements a 1D texture bound to ordinary device memory can "
                           "address.")));
  p.push_back(dimsProp("max_texture_2d", N_("Max texture 2D"),
                       {r.maxTexture2D[0], r.maxTexture2D[1]}, texHelp));
  p.push_back(dimsProp("max_texture_2d_mipmap", N_("Max texture 2D (mipmapped)"),
                       {r.maxTexture2DMipmap[0], r.maxTexture2DMipmap[1]}, texHelp));
  p.push_back(dimsProp("max_texture_2d_linear", N_("Max texture 2D (linear: width, height, pitch)"),
                       {r.maxTexture2DLinear[0], r.maxTexture2DLinear[1], r.maxTexture2DLinear[2]},
                       N_("The largest 2D texture bound to pitched device memory: width and height "
                          "in texels, pitch in bytes.")));
  p.push_back(dimsProp("max_texture_2d_gather", N_("Max texture 2D (gather)"),
                       {r.maxTexture2DGather[0], r.maxTexture2DGather[1]},
                       N_("The largest 2D texture tex2Dgather can read (four texels per fetch).")));
  p.push_back(dimsProp("max_texture_3d", N_("Max texture 3D"),
                       {r.maxTexture3D[0], r.maxTexture3D[1], r.maxTexture3D[2]}, texHelp));
  p.push_back(dimsProp("max_texture_3d_alt", N_("Max texture 3D (alternate shape)"),
                       {r.maxTexture3DAlt[0], r.maxTexture3DAlt[1], r.maxTexture3DAlt[2]},
                       N_("A second allowed 3D shape: thinner in x and y but deeper in z.")));
  p.push_back(countProp("max_texture_cubemap", N_("Max texture cubemap (face width)"),
                        r.maxTextureCubemap, texHelp));
  p.push_back(dimsProp("max_texture_1d_layered", N_("Max texture 1D layered (width, layers)"),
                       {r.maxTexture1DLayered[0], r.maxTexture1DLayered[1]}, texHelp));
  p.push_back(dimsProp(
      "max_texture_2d_layered", N_("Max texture 2D layered (width, height, layers)"),
      {r.maxTexture2DLayered[0], r.maxTexture2DLayered[1], r.maxTexture2DLayered[2]}, texHelp));
  p.push_back(dimsProp("max_texture_cubemap_layered",
                       N_("Max texture cubemap layered (width, layers)"),
                       {r.maxTextureCubemapLayered[0], r.maxTextureCubemapLayered[1]}, texHelp));
  p.push_back(countProp("max_surface_1d", N_("Max surface 1D"), r.maxSurface1D, surfHelp));
  p.push_back(dimsProp("max_surface_2d", N_("Max surface 2D"),
                       {r.maxSurface2D[0], r.maxSurface2D[1]}, surfHelp));
  p.push_back(dimsProp("max_surface_3d", N_("Max surface 3D"),
                       {r.maxSurface3D[0], r.maxSurface3D[1], r.maxSurface3D[2]}, surfHelp));
  p.push_back(dimsProp("max_surface_1d_layered", N_("Max surface 1D layered (width, layers)"),
                       {r.maxSurface1DLayered[0], r.maxSurface1DLayered[1]}, surfHelp));
  p.push_back(dimsProp(
      "max_surface_2d_layered", N_("Max surface 2D layered (width, height, layers)"),
      {r.maxSurface2DLayered[0], r.maxSurface2DLayered[1], r.maxSurface2DLayered[2]}, surfHelp));
  p.push_back(countProp("max_surface_cubemap", N_("Max surface cubemap (face width)"),
                        r.maxSurfaceCubemap, surfHelp));
  p.push_back(dimsProp("max_surface_cubemap_layered",
                       N_("Max surface cubemap layered (width, layers)"),
                       {r.maxSurfaceCubemapLayered[0], r.maxSurfaceCubemapLayered[1]}, surfHelp));
  p.push_back(
      flagProp("sparse_cuda_array_supported", N_("Sparse CUDA arrays"), r.sparseCudaArraySupported,
               N_("Yes when CUDA arrays can be created with only some of their tiles backed "
                  "by memory, for very large textures of which little is used.")));
  p.push_back(flagProp("deferred_mapping_cuda_array_supported", N_("Deferred-mapping CUDA arrays"),
                       r.deferredMappingCudaArraySupported,
                       N_("Yes when CUDA arrays can be created first and given memory later.")));
  p.push_back(flagProp("timeline_semaphore_interop_supported", N_("Timeline semaphore interop"),
                       r.timelineSemaphoreInteropSupported,
                       N_("Yes when CUDA can wait on and signal Vulkan or Direct3D 12 timeline "
                          "semaphores, to synchronize with graphics work without the CPU.")));
  p.push_back(flagProp("ipc_event_supported", N_("IPC events"), r.ipcEventSupported,
                       N_("Yes when CUDA events can be shared with another process "
                          "(cudaIpcGetEventHandle) to order work across processes.")));
  p.push_back(flagProp("unified_function_pointers", N_("Unified function pointers"),
                       r.unifiedFunctionPointers,
                       N_("Yes when a function pointer can be called on both host and device.")));
  return g;
}

}  // namespace

std::vector<PropertyGroup> describeProperties(const RawDeviceNumbers& r) {
  const std::optional<ArchInfo> arch = archInfo(r.major, r.minor);
  const std::string unknownArch = "unknown (compute capability " +
                                  computeCapabilityString(r.major, r.minor) +
                                  " is newer than this build's table)";
  return {identityGroup(r, arch, unknownArch), computeGroup(r, arch), memoryGroup(r),
          transfersGroup(r), limitsGroup(r)};
}

DeviceInfo makeDeviceInfo(const RawDeviceNumbers& raw) {
  DeviceInfo d;
  d.index = raw.index;
  d.name = raw.name;
  d.major = raw.major;
  d.minor = raw.minor;
  d.sms = raw.multiProcessorCount;
  d.clockKHz = raw.clockKHz;
  d.memClockKHz = raw.memClockKHz;
  d.busWidthBits = raw.memoryBusWidthBits;
  d.totalGlobalMem = raw.totalGlobalMem;
  d.freeGlobalMem = raw.freeGlobalMem;
  d.l2Bytes = raw.l2CacheBytes > 0 ? size_t(raw.l2CacheBytes) : 0;
  d.warpSize = raw.warpSize;
  d.maxThreadsPerBlock = raw.maxThreadsPerBlock;
  d.arch = archInfo(raw.major, raw.minor);
  d.bandwidth = memoryBandwidthPeak(raw.memClockKHz, raw.memoryBusWidthBits);
  // Unknown unit counts (0) make the peaks unknown, with the formula saying why.
  const FlopsPeaks peaks = flopsPeaks(raw.major, raw.minor, raw.multiProcessorCount, raw.clockKHz);
  d.fp32 = peaks.fp32;
  d.fp64 = peaks.fp64;
  d.groups = describeProperties(raw);
  d.raw = raw;
  return d;
}

}  // namespace cudalab::device
