package io.nodeatlas.agent.api;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.io.Closeable;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The agent's calls on {@code resource.k8s.io/v1} ResourceSlices and the Node they belong to. */
public interface SliceApi {

  /** A list's items and the list's {@code resourceVersion}, where a watch starts. */
  record Listed(List<ResourceSlice> items, String resourceVersion) {}

  /** What a watch tells its caller; called on the watch's thread. */
  interface Listener {
    /** A slice was deleted. */
    void deleted(String name);

    /** The watch started again from a new list (its resourceVersion expired: 410 Gone), so events may be lost. */
    void relisted();

    /** The watch ended for good (not after {@link Watch#close()}). */
    void closed(ApiException cause);
  }

  /** A running watch. */
  interface Watch extends Closeable {
    @Override
    void close();
  }

  /** The slices carrying all of {@code labels}. */
  Listed list(Map<String, String> labels) throws ApiException;

  /** Creates {@code slice}; the object as stored. */
  ResourceSlice create(ResourceSlice slice) throws ApiException;

  /** Replaces {@code slice} (its {@code resourceVersion} must be the stored one); the object as stored. */
  ResourceSlice update(ResourceSlice slice) throws ApiException;

  /** Deletes the slice {@code name}; one that is gone already is no failure. */
  void delete(String name) throws ApiException;

  /** The UID of Node {@code name}, empty when there is no such Node. */
  Optional<String> nodeUid(String name) throws ApiException;

  /** Watches the slices carrying all of {@code labels}, from a fresh list, until closed. */
  Watch watch(Map<String, String> labels, Listener listener);

  /** The API server's URL, for messages. */
  String server();
}
