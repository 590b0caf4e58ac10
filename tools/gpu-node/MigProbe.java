import io.nodeatlas.discovery.gpu.NvmlLibraryLocator;
import io.nodeatlas.discovery.gpu.nvml.NvmlDevice;
import io.nodeatlas.discovery.gpu.nvml.NvmlException;
import io.nodeatlas.discovery.gpu.nvml.NvmlSession;
import io.nodeatlas.discovery.host.HostContext;
import io.nodeatlas.discovery.host.HostFs;
import java.nio.file.Path;

/**
 * The MIG profile calls of nodeatlas's NVML binding (JNA) against the real driver, read only: each
 * profile index's info, its placements and remaining capacity, one line each, to compare with
 * mig-profiles.py (NVIDIA's own binding) on the same GPU.
 */
public class MigProbe {
  public static void main(String[] args) throws Exception {
    try (NvmlSession nvml = NvmlLibraryLocator.load(HostContext.of(HostFs.of(Path.of("/")))).init()) {
      for (int g = 0; g < nvml.deviceCount(); g++) {
        NvmlDevice gpu = nvml.deviceByIndex(g);
        System.out.println("gpu " + g + " " + nvml.name(gpu));
        for (int i = 0; i < NvmlSession.GpuInstanceProfile.INDEX_COUNT + 1; i++) {
          try {
            NvmlSession.GpuInstanceProfile p = nvml.gpuInstanceProfile(gpu, i);
            System.out.println("  " + p + " placements " + nvml.gpuInstancePlacements(gpu, p.id())
                + " remaining " + nvml.gpuInstanceRemainingCapacity(gpu, p.id()));
          } catch (NvmlException e) {
            System.out.println("  index " + i + ": " + e.getMessage());
          }
        }
      }
    }
  }
}
