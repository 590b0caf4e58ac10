package io.nodeatlas.agent.claims;

/**
 * One allocation result of a claim ({@code status.allocation.devices.results[]}, {@code resource.k8s.io/v1}
 * {@code DeviceRequestAllocationResult}: request [1], driver [2], pool [3], device [4], adminAccess [5],
 * shareID [9], by proto field number). {@code request} may carry a subrequest ({@code req/sub}).
 */
public record AllocatedDevice(String request, String driver, String pool, String device, boolean adminAccess) {

  /** The base request name the kubelet expects in {@code request_names} ({@code req/sub} → {@code req}). */
  public String baseRequest() {
    int slash = request.indexOf('/');
    return slash < 0 ? request : request.substring(0, slash);
  }
}
