package io.nodeatlas.agent.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SliceApi} on an {@link ApiConnection}: the REST paths of {@code resource.k8s.io/v1}, the objects
 * bound to fabric8's model classes by a plain Jackson mapper (the slices are built by {@code NodeSlices},
 * shared with {@code nodeatlas slices}), the Node read for its UID alone with the streaming parser.
 *
 * <p>The watch follows the API concepts' contract for efficient change detection: a list gives the
 * {@code resourceVersion} to watch from, {@code allowWatchBookmarks} keeps it current while nothing
 * changes, a watch the server ends (its {@code timeoutSeconds}) is opened again from the last version
 * seen, and a version too old for the server (410 Gone, as the answer or as an {@code ERROR} event) means
 * a new list, after which the listener hears {@link SliceApi.Listener#relisted()}. Each event is bounded
 * to {@link ApiConnection.Limits#maxBytes}; a request that brings nothing, not even a bookmark, within the
 * request time is opened again from the last version seen.
 */
public final class HttpSliceApi implements SliceApi {

  private static final Logger LOG = LoggerFactory.getLogger(HttpSliceApi.class);
  static final String SLICES = "/apis/resource.k8s.io/v1/resourceslices";
  /** How long the server may keep one watch request open before we open the next (client-go picks 5–10 min). */
  static final int WATCH_SECONDS = 300;
  /** A watch request the server ends this soon without an event is opened again after a pause: 1 s doubling to 1 min. */
  static final long SHORT_WATCH_NANOS = 1_000_000_000L;
  static final long MAX_PAUSE_MILLIS = 60_000;

  private final ApiConnection api;
  private final ObjectMapper mapper;
  private final JsonFactory json;

  public HttpSliceApi(ApiConnection api) {
    this.api = api;
    this.json = JsonFactory.builder().streamReadConstraints(StreamReadConstraints.builder()
        .maxStringLength(api.limits().maxBytes()).maxNestingDepth(64).build()).build();
    this.mapper = JsonMapper.builder(json).disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL)).build();
  }

  @Override
  public String server() {
    return api.base() + "/";
  }

  @Override
  public Listed list(Map<String, String> labels) throws ApiException {
    ResourceSliceList l = read(api.call("GET", SLICES + "?labelSelector=" + selector(labels), null), ResourceSliceList.class);
    return new Listed(l.getItems() == null ? List.of() : List.copyOf(l.getItems()),
        l.getMetadata() == null ? null : l.getMetadata().getResourceVersion());
  }

  @Override
  public ResourceSlice create(ResourceSlice slice) throws ApiException {
    return read(api.call("POST", SLICES, write(slice)), ResourceSlice.class);
  }

  @Override
  public ResourceSlice update(ResourceSlice slice) throws ApiException {
    return read(api.call("PUT", SLICES + "/" + name(slice.getMetadata().getName()), write(slice)), ResourceSlice.class);
  }

  @Override
  public void delete(String name) throws ApiException {
    ApiConnection.Answer a = api.exchange("DELETE", SLICES + "/" + name(name), null, null);
    if (a.code() / 100 != 2 && a.code() != 404) {
      throw api.failure(a);
    }
  }

  @Override
  public Optional<String> nodeUid(String name) throws ApiException {
    ApiConnection.Answer a = api.exchange("GET", "/api/v1/nodes/" + name(name), null, null);
    if (a.code() == 404) {
      return Optional.empty();
    }
    if (a.code() / 100 != 2) {
      throw api.failure(a);
    }
    try (JsonParser p = json.createParser(a.body())) {
      return Optional.ofNullable(Event.read(p).uid);
    } catch (IOException e) {
      throw new ApiException(a.code(), null, "the Node " + name + " from " + server() + " does not read: " + e.getMessage(), e);
    }
  }

  @Override
  public Watch watch(Map<String, String> labels, Listener listener) {
    SliceWatch w = new SliceWatch(selector(labels), listener);
    Thread t = new Thread(w::run, "slice-watch");
    t.setDaemon(true);
    w.thread = t;
    t.start();
    return w;
  }

  private <T> T read(byte[] body, Class<T> type) throws ApiException {
    try {
      return mapper.readValue(body, type);
    } catch (IOException e) {
      throw new ApiException(200, null, "an answer from " + server() + " is not a " + type.getSimpleName() + ": "
          + e.getMessage(), e);
    }
  }

  private byte[] write(Object o) throws ApiException {
    try {
      return mapper.writeValueAsBytes(o);
    } catch (IOException e) {
      throw new ApiException(0, null, "cannot write " + o.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  /** A name as a path segment: Kubernetes names are DNS subdomains, anything else is refused here. */
  private static String name(String name) throws ApiException {
    if (name == null || !name.matches("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")) {
      throw new ApiException(0, null, "not a Kubernetes object name: " + name, null);
    }
    return name;
  }

  static String selector(Map<String, String> labels) {
    StringJoiner j = new StringJoiner(",");
    new TreeMap<>(labels).forEach((k, v) -> j.add(k + "=" + v));
    return URLEncoder.encode(j.toString(), StandardCharsets.UTF_8);
  }

  /** The fields of a watch event (or an object) the agent reads. */
  static final class Event {
    String type;
    String name;
    String uid;
    String resourceVersion;
    int code;

    /** Reads one JSON object: {@code type}, and of {@code object} (or the object itself) its metadata and Status code. */
    static Event read(JsonParser p) throws IOException {
      Event e = new Event();
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      e.fields(p, 0);
      return e;
    }

    /** The fields of the object at the parser (after its START_OBJECT): depth 0 the event, 1 its object. */
    private void fields(JsonParser p, int depth) throws IOException {
      for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
        String f = p.currentName();
        JsonToken v = p.nextToken();
        if (v == JsonToken.START_OBJECT && ("object".equals(f) && depth == 0)) {
          fields(p, 1);
        } else if (v == JsonToken.START_OBJECT && "metadata".equals(f)) {
          metadata(p);
        } else if (v == JsonToken.VALUE_STRING && "type".equals(f) && depth == 0) {
          type = p.getText();
        } else if (v == JsonToken.VALUE_NUMBER_INT && "code".equals(f)) {
          code = p.getIntValue();
        } else {
          p.skipChildren();
        }
      }
    }

    private void metadata(JsonParser p) throws IOException {
      for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
        String f = p.currentName();
        JsonToken v = p.nextToken();
        if (v == JsonToken.VALUE_STRING) {
          switch (f) {
            case "name" -> name = p.getText();
            case "uid" -> uid = p.getText();
            case "resourceVersion" -> resourceVersion = p.getText();
            default -> { }
          }
        } else {
          p.skipChildren();
        }
      }
    }
  }

  /** Counts the bytes of the current event and refuses one larger than the bound. */
  private static final class Bounded extends FilterInputStream {
    private final long max;
    private long count;

    Bounded(InputStream in, long max) {
      super(in);
      this.max = max;
    }

    void next() {
      count = 0;
    }

    private void add(long n) throws IOException {
      count += Math.max(n, 0);
      if (count > max) {
        throw new IOException("a watch event larger than " + max + " bytes; refused");
      }
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      add(b < 0 ? 0 : 1);
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      add(n);
      return n;
    }
  }

  /** One watch: list, then watch from the list's version, again and again, until closed or failed. */
  private final class SliceWatch implements Watch {
    private final String selector;
    private final Listener listener;
    private volatile boolean closed;
    private volatile Thread thread;
    /** Whether the last watch request saw an event (a server that ends every request at once is paused for). */
    private boolean sawEvent;

    SliceWatch(String selector, Listener listener) {
      this.selector = selector;
      this.listener = listener;
    }

    /**
     * Ends the watch without waiting for it: a pause between requests ends at once, a request in flight
     * with its next event or its next read's timeout (the JDK's answer stream cannot be closed while
     * another thread reads it), and no event is heard after this.
     */
    @Override
    public void close() {
      closed = true;
      Thread t = thread;
      if (t != null && t != Thread.currentThread()) {
        t.interrupt(); // ends a pause between requests
      }
    }

    void run() {
      String version = null;
      boolean listedBefore = false;
      long pause = 1000;
      try {
        while (!closed) {
          if (version == null) {
            version = listVersion();
            if (listedBefore) {
              listener.relisted();
            }
            listedBefore = true;
          }
          long started = System.nanoTime();
          sawEvent = false;
          version = follow(version);
          if (!sawEvent && System.nanoTime() - started < SHORT_WATCH_NANOS && !closed) {
            try {
              Thread.sleep(pause); // a server that ends each watch at once is not asked in a loop
            } catch (InterruptedException e) {
              return; // closed
            }
            pause = Math.min(pause * 2, MAX_PAUSE_MILLIS);
          } else {
            pause = 1000;
          }
        }
      } catch (ApiException e) {
        if (!closed) {
          listener.closed(e);
        }
      } catch (RuntimeException e) {
        if (!closed) {
          listener.closed(ApiException.noAnswer(server(), e));
        }
      }
    }

    private String listVersion() throws ApiException {
      ResourceSliceList l = read(api.call("GET", SLICES + "?labelSelector=" + selector + "&limit=1", null),
          ResourceSliceList.class);
      String v = l.getMetadata() == null ? null : l.getMetadata().getResourceVersion();
      if (v == null || v.isEmpty()) {
        throw new ApiException(200, null, "the ResourceSlice list from " + server() + " has no resourceVersion", null);
      }
      return v;
    }

    /** Reads one watch request's events; the version to go on from, null when a new list is needed. */
    private String follow(String version) throws ApiException {
      String path = SLICES + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=" + WATCH_SECONDS + "&labelSelector="
          + selector + "&resourceVersion=" + URLEncoder.encode(version, StandardCharsets.UTF_8);
      InputStream raw;
      try {
        raw = api.stream(path, api.limits().request());
      } catch (ApiException e) {
        if (e.code() == 410) {
          return null;
        }
        throw e;
      }
      String v = version;
      Bounded in = new Bounded(raw, api.limits().maxBytes());
      try (raw; JsonParser p = json.createParser(in)) {
        while (!closed) {
          in.next();
          Event e = Event.read(p);
          if (e == null || closed) {
            return v; // the server ended this request: go on from the last version seen
          }
          if ("ERROR".equals(e.type)) {
            if (e.code == 410) {
              LOG.debug("ResourceSlice watch: version {} expired; listing again", v);
              return null;
            }
            throw new ApiException(e.code, null, "the ResourceSlice watch of " + server() + " ended: HTTP " + e.code, null);
          }
          sawEvent = true;
          if (e.resourceVersion != null && !e.resourceVersion.isEmpty()) {
            v = e.resourceVersion;
          }
          if ("DELETED".equals(e.type) && e.name != null) {
            listener.deleted(e.name);
          }
        }
        return v;
      } catch (SocketTimeoutException e) {
        return v; // nothing, not even a bookmark, within the request time: a new request from the last version seen
      } catch (IOException e) {
        if (closed) {
          return v;
        }
        throw ApiException.noAnswer(server(), e);
      }
    }
  }
}
