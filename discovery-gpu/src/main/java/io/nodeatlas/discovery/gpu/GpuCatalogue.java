package io.nodeatlas.discovery.gpu;

import static io.nodeatlas.discovery.gpu.GpuDevices.ARCHITECTURE;
import static io.nodeatlas.discovery.gpu.GpuDevices.BOARD_PART_NUMBER;
import static io.nodeatlas.discovery.gpu.GpuDevices.BRAND;
import static io.nodeatlas.discovery.gpu.GpuDevices.COMPUTE_INSTANCE_ID;
import static io.nodeatlas.discovery.gpu.GpuDevices.COPY_ENGINES;
import static io.nodeatlas.discovery.gpu.GpuDevices.CUDA_COMPUTE_CAPABILITY;
import static io.nodeatlas.discovery.gpu.GpuDevices.CUDA_DRIVER_VERSION;
import static io.nodeatlas.discovery.gpu.GpuDevices.DECODERS;
import static io.nodeatlas.discovery.gpu.GpuDevices.DRIVER_VERSION;
import static io.nodeatlas.discovery.gpu.GpuDevices.ENCODERS;
import static io.nodeatlas.discovery.gpu.GpuDevices.GPU_INSTANCE_ID;
import static io.nodeatlas.discovery.gpu.GpuDevices.JPEG_ENGINES;
import static io.nodeatlas.discovery.gpu.GpuDevices.MEMORY;
import static io.nodeatlas.discovery.gpu.GpuDevices.MIG_ENABLED;
import static io.nodeatlas.discovery.gpu.GpuDevices.MINOR;
import static io.nodeatlas.discovery.gpu.GpuDevices.MULTIPROCESSORS;
import static io.nodeatlas.discovery.gpu.GpuDevices.OFA_ENGINES;
import static io.nodeatlas.discovery.gpu.GpuDevices.PARENT_MINOR;
import static io.nodeatlas.discovery.gpu.GpuDevices.PARENT_UUID;
import static io.nodeatlas.discovery.gpu.GpuDevices.PRODUCT_NAME;
import static io.nodeatlas.discovery.gpu.GpuDevices.PROFILE;
import static io.nodeatlas.discovery.gpu.GpuDevices.SERIAL;
import static io.nodeatlas.discovery.gpu.GpuDevices.TYPE;
import static io.nodeatlas.discovery.gpu.GpuDevices.UUID;
import static io.nodeatlas.discovery.gpu.GpuDevices.VBIOS_VERSION;
import static io.nodeatlas.discovery.model.AttributeDoc.attribute;
import static io.nodeatlas.discovery.model.AttributeDoc.capacity;

import io.nodeatlas.discovery.pci.PciFunctionFacts;
import io.nodeatlas.discovery.model.AttributeDoc;
import java.util.ArrayList;
import java.util.List;

/** Every attribute and capacity the {@code gpu} source publishes on {@code gpu} and {@code mig} devices. */
final class GpuCatalogue {

  static final String GPU = "gpu";
  static final String MIG = "mig";

  /** The PCI function of an H100 SXM, the example of the PCI attributes (NVML ids, else sysfs). */
  private static final PciFunctionFacts H100_FUNCTION = PciFunctionFacts.example("0000:3b:00.0", "pci0000:3a", "10de",
      "2330", "10de", "16c1", "nvidia", "32.0 GT/s", 16);

  static final List<AttributeDoc> DOCS = build();

  private GpuCatalogue() {}

  private static List<AttributeDoc> build() {
    List<AttributeDoc> docs = new ArrayList<>();

    docs.add(attribute(GPU, TYPE, "string", "", "gpu", "The device type: a whole NVIDIA GPU."));
    docs.add(attribute(GPU, UUID, "string", "", "GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11",
        "The GPU's UUID (nvmlDeviceGetUUID), as nvidia-smi -L and NVIDIA_VISIBLE_DEVICES name it."));
    identity(docs, GPU, "the GPU's");
    docs.add(attribute(GPU, MINOR, "int", "", "0",
        "N of /dev/nvidiaN (nvmlDeviceGetMinorNumber); the device name gpu-N uses it, as it is stable across reboots."));
    docs.add(attribute(GPU, SERIAL, "string", "", "1654922004211", "The board serial number (nvmlDeviceGetSerial)."));
    docs.add(attribute(GPU, BOARD_PART_NUMBER, "string", "", "692-2G520-0200-000",
        "The board part number (nvmlDeviceGetBoardPartNumber)."));
    docs.add(attribute(GPU, VBIOS_VERSION, "string", "", "96.00.74.00.01",
        "The VBIOS version as NVML prints it (nvmlDeviceGetVbiosVersion); not a semantic version."));
    docs.add(attribute(GPU, MIG_ENABLED, "bool", "", "false",
        "Whether MIG mode is on (nvmlDeviceGetMigMode, current mode); false on GPUs that cannot do MIG. "
            + "Absent only when NVML's answer failed (with a warning)."));
    docs.addAll(H100_FUNCTION.catalogue(GPU, "the GPU's PCI function"));
    docs.add(capacity(GPU, MEMORY, "bytes", "85520809984", "Total memory of the GPU (nvmlDeviceGetMemoryInfo_v2 total)."));

    docs.add(attribute(MIG, TYPE, "string", "", "mig", "The device type: a MIG device (a GPU instance's compute instance)."));
    docs.add(attribute(MIG, UUID, "string", "", "MIG-1f3c5a7e-0d2b-5c4a-8e6f-0a1b2c3d4e5f",
        "The MIG device's UUID (nvmlDeviceGetUUID on the MIG handle)."));
    docs.add(attribute(MIG, PARENT_UUID, "string", "", "GPU-6c6f1d3e-1b6e-4b5f-9c1e-5b8a4f0e2a11",
        "The UUID of the GPU the MIG device is part of."));
    docs.add(attribute(MIG, PARENT_MINOR, "int", "", "0", "N of the parent GPU's /dev/nvidiaN."));
    docs.add(attribute(MIG, PROFILE, "string", "", "1g.10gb",
        "The MIG profile, from the MIG device's name (nvmlDeviceGetName: \"<product> MIG <profile>\")."));
    docs.add(attribute(MIG, GPU_INSTANCE_ID, "int", "", "9", "The GPU instance id (nvmlDeviceGetGpuInstanceId)."));
    docs.add(attribute(MIG, COMPUTE_INSTANCE_ID, "int", "", "0",
        "The compute instance id within the GPU instance (nvmlDeviceGetComputeInstanceId)."));
    docs.add(attribute(MIG, MigPartitions.PROFILE_ID, "int", "", "19",
        "A MIG partition's GPU instance profile id (nvmlGpuInstanceProfileInfo_v2_t id), only with --gpu-mig-partitions."));
    docs.add(attribute(MIG, MigPartitions.PLACEMENT_START, "int", "", "0",
        "A MIG partition's first memory slice (nvmlDeviceGetGpuInstancePossiblePlacements_v2 start)."));
    docs.add(attribute(MIG, MigPartitions.PLACEMENT_SIZE, "int", "", "1",
        "How many memory slices a MIG partition's placement takes (nvmlGpuInstancePlacement_t size)."));
    identity(docs, MIG, "the parent GPU's");
    docs.addAll(H100_FUNCTION.catalogue(MIG, "the parent GPU's PCI function"));
    docs.add(capacity(MIG, MEMORY, "bytes", "10468982784",
        "Memory of the MIG device (nvmlDeviceGetMemoryInfo_v2 on the MIG handle, else nvmlDeviceAttributes_t memorySizeMB)."));
    docs.add(capacity(MIG, MULTIPROCESSORS, "", "16", "Streaming multiprocessors (nvmlDeviceAttributes_t multiprocessorCount)."));
    docs.add(capacity(MIG, COPY_ENGINES, "", "1", "Copy engines (nvmlDeviceAttributes_t sharedCopyEngineCount)."));
    docs.add(capacity(MIG, DECODERS, "", "1", "Video decoders (nvmlDeviceAttributes_t sharedDecoderCount)."));
    docs.add(capacity(MIG, ENCODERS, "", "0", "Video encoders (nvmlDeviceAttributes_t sharedEncoderCount)."));
    docs.add(capacity(MIG, JPEG_ENGINES, "", "1", "JPEG decoders (nvmlDeviceAttributes_t sharedJpegCount)."));
    docs.add(capacity(MIG, OFA_ENGINES, "", "0", "Optical flow accelerators (nvmlDeviceAttributes_t sharedOfaCount)."));
    return List.copyOf(docs);
  }

  /** Product, architecture and versions: the same on a GPU and on its MIG devices. */
  private static void identity(List<AttributeDoc> docs, String type, String whose) {
    docs.add(attribute(type, PRODUCT_NAME, "string", "", "NVIDIA H100 80GB HBM3",
        "The product name, " + whose + " (nvmlDeviceGetName)."));
    docs.add(attribute(type, BRAND, "string", "", "nvidia",
        "The brand, " + whose + " (nvmlDeviceGetBrand), NVIDIA's name for the nvmlBrandType_t value in lower case: "
            + "nvidia, nvidiartx, geforce, quadro, tesla, ..."));
    docs.add(attribute(type, ARCHITECTURE, "string", "", "hopper",
        "The architecture, " + whose + " (nvmlDeviceGetArchitecture), in lower case: ampere, ada lovelace, hopper, "
            + "blackwell, ..."));
    docs.add(attribute(type, CUDA_COMPUTE_CAPABILITY, "version", "", "9.0.0",
        "The CUDA compute capability major.minor, " + whose + " (nvmlDeviceGetCudaComputeCapability)."));
    docs.add(attribute(type, DRIVER_VERSION, "version", "", "550.54.15",
        "The NVIDIA driver version (nvmlSystemGetDriverVersion) as a semantic version, leading zeros dropped."));
    docs.add(attribute(type, CUDA_DRIVER_VERSION, "version", "", "12.4.0",
        "The highest CUDA version the driver supports (nvmlSystemGetCudaDriverVersion_v2)."));
  }
}
