package io.nodeatlas.cli.fleet;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.nodeatlas.discovery.host.Excerpt;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads whole collections from the API server with list calls, page by page ({@code limit} and
 * {@code continue}, API concepts "Retrieving large results sets in chunks"), as a read-only client. An
 * answer is hostile input: each page is read up to {@link #maxPageBytes} and its token stream parsed
 * within Jackson's bounds (no tree of the page: its items are read as they come), the items of one
 * collection are at most {@link #maxItems}, and the whole read ends at its deadline. Every problem is
 * one {@link ApiException} naming the URL and the reason.
 */
public final class ClusterReader {

  /** A list call that could not be completed. */
  public static final class ApiException extends Exception {
    private static final long serialVersionUID = 1L;

    public ApiException(String message) {
      super(message);
    }
  }

  private final HttpClient http;
  private final String server;
  private final int pageLimit;
  private final long maxPageBytes;
  private final int maxItems;
  private final long deadlineNanos;
  private final ObjectMapper json;

  /**
   * {@code server}: the API server's URL; {@code timeoutMillis}: for all list calls of this reader
   * together.
   */
  public ClusterReader(HttpClient http, String server, int pageLimit, long maxPageBytes, int maxItems, long timeoutMillis) {
    this.http = http;
    this.server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
    this.pageLimit = pageLimit;
    this.maxPageBytes = maxPageBytes;
    this.maxItems = maxItems;
    this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    this.json = JsonMapper.builder(JsonFactory.builder().streamReadConstraints(StreamReadConstraints.builder()
        .maxNestingDepth(64).maxStringLength(1 << 20).build()).build()).build();
  }

  /** Reads one item of a list page from the token stream: {@code p} at its first token. */
  @FunctionalInterface
  public interface ItemReader {
    void read(JsonParser p) throws IOException;
  }

  /**
   * Every item of the collection at {@code path} ({@code /apis/resource.k8s.io/v1/resourceslices}), handed
   * to {@code each} as it is parsed from the page's token stream (no tree of the page); returns how many.
   */
  public int list(String path, ItemReader each) throws ApiException {
    String token = null;
    int[] items = {0};
    int pages = 0;
    do {
      String url = server + path + "?limit=" + pageLimit
          + (token == null ? "" : "&continue=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
      byte[] page = get(url);
      String next;
      try (JsonParser p = json.createParser(page)) {
        next = page(p, each, () -> {
          if (++items[0] > maxItems) {
            throw new ApiException("GET " + server + path + ": more than " + maxItems + " items; refusing to read more");
          }
        });
        if (next == null) {
          throw new ApiException("GET " + url + ": the answer is not a list (no items array)");
        }
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new ApiException("GET " + url + ": the answer is not JSON: "
            + Excerpt.scrub(String.valueOf(e.getOriginalMessage())).lines().findFirst().orElse(""));
      } catch (IOException e) {
        throw new ApiException("GET " + url + ": cannot read the answer: " + Excerpt.scrub(String.valueOf(e.getMessage())));
      }
      if (!next.isEmpty() && next.equals(token)) {
        throw new ApiException("GET " + url + ": the server answered with the same continue token again");
      }
      token = next.isEmpty() ? null : next;
      if (++pages > maxItems) {
        throw new ApiException("GET " + server + path + ": more pages than items; refusing to read more");
      }
    } while (token != null);
    return items[0];
  }

  /** Called before each item; throws to stop reading. */
  interface Counter {
    void count() throws ApiException;
  }

  /**
   * One list page from its token stream: each item to {@code each} (what it leaves unread is skipped), the
   * {@code metadata.continue} token returned ("" when none), null when the page has no items array.
   */
  static String page(JsonParser p, ItemReader each, Counter counter) throws IOException, ApiException {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      return null;
    }
    boolean list = false;
    String next = "";
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      if (field.equals("items") && t == JsonToken.START_ARRAY) {
        list = true;
        JsonStreamContext items = p.getParsingContext();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          counter.count();
          each.read(p);
          while (p.getParsingContext() != items) {
            if (p.nextToken() == null) {
              throw new com.fasterxml.jackson.core.JsonParseException(p, "Unexpected end-of-input within an item");
            }
          }
        }
      } else if (field.equals("metadata") && t == JsonToken.START_OBJECT) {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String m = p.currentName();
          JsonToken v = p.nextToken();
          if (m.equals("continue")) {
            next = v.isScalarValue() && v != JsonToken.VALUE_NULL ? p.getText() : "";
          }
          p.skipChildren();
        }
      } else {
        p.skipChildren();
      }
    }
    return list ? next : null;
  }

  private byte[] get(String url) throws ApiException {
    long left = deadlineNanos - System.nanoTime();
    if (left <= 0) {
      throw new ApiException("GET " + url + ": no time left (the list calls share one time limit)");
    }
    HttpRequest request = http.newHttpRequestBuilder().uri(url).header("Accept", "application/json")
        .timeout(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)), TimeUnit.MILLISECONDS).build();
    Body body = new Body(maxPageBytes);
    CompletableFuture<HttpResponse<AsyncBody>> sent = http.consumeBytes(request, body);
    HttpResponse<AsyncBody> response = null;
    try {
      response = sent.get(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
      response.body().consume();
      response.body().done().get(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      cancel(sent, response);
      throw new ApiException("GET " + url + ": no complete answer within the time limit");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancel(sent, response);
      throw new ApiException("GET " + url + ": interrupted");
    } catch (ExecutionException | java.util.concurrent.CancellationException e) {
      cancel(sent, response);
      if (!body.tooLarge) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        throw new ApiException("GET " + url + ": cannot reach the API server: "
            + Excerpt.scrub(String.valueOf(cause.getMessage())));
      }
    }
    if (body.tooLarge) {
      throw new ApiException("GET " + url + ": the answer is larger than " + maxPageBytes + " bytes; refusing to read more");
    }
    byte[] bytes = body.bytes.toByteArray();
    if (response.code() != 200) {
      throw new ApiException("GET " + url + ": " + response.code() + " " + status(bytes));
    }
    return bytes;
  }

  /** The message of a {@code Status} answer, or a short excerpt of whatever came. */
  private String status(byte[] bytes) {
    try {
      JsonNode s = json.readTree(bytes);
      if (s != null && s.path("kind").asText("").equals("Status")) {
        return s.path("reason").asText("") + ": " + Excerpt.scrub(s.path("message").asText(""));
      }
    } catch (IOException | RuntimeException e) {
      // Not a Status: show the start of what came.
    }
    String text = new String(bytes, 0, Math.min(bytes.length, 200), StandardCharsets.UTF_8);
    return Excerpt.scrub(text.lines().findFirst().orElse(""));
  }

  private static void cancel(CompletableFuture<HttpResponse<AsyncBody>> sent, HttpResponse<AsyncBody> response) {
    if (response != null) {
      response.body().cancel();
    }
    sent.cancel(true);
  }

  /** Collects the answer and stops reading once it exceeds the bound. */
  private static final class Body implements AsyncBody.Consumer<List<ByteBuffer>> {
    private final long max;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private volatile boolean tooLarge;

    Body(long max) {
      this.max = max;
    }

    @Override
    public void consume(List<ByteBuffer> buffers, AsyncBody body) {
      synchronized (this) {
        for (ByteBuffer b : buffers) {
          if (bytes.size() + (long) b.remaining() > max) {
            tooLarge = true;
            body.cancel();
            return;
          }
          byte[] copy = new byte[b.remaining()];
          b.get(copy);
          bytes.writeBytes(copy);
        }
      }
      body.consume();
    }
  }
}
