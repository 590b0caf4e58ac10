package io.nodeatlas.agent.kubelet;

import com.google.protobuf.CodedOutputStream;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.nodeatlas.agent.claims.PreparedDevice;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The DRA plugin's answers, {@code NodePrepareResourcesResponse} and {@code NodeUnprepareResourcesResponse}
 * of {@code k8s.io/kubelet/pkg/apis/dra/v1/api.proto} (v1beta1 has the same field numbers), written as
 * protobuf wire bytes. The generated messages' {@code claims} map would build the proto file's whole
 * descriptor with the full runtime on the first claim, about 300 classes the agent keeps for its life.
 */
final class AnswerWire {

  private AnswerWire() {}

  /** {@code method} with its answer sent as the bytes this class writes. */
  static <Q> MethodDescriptor<Q, byte[]> answering(MethodDescriptor<Q, ?> method) {
    return method.toBuilder(method.getRequestMarshaller(), BYTES).build();
  }

  /** {@code method}, whose request has the same fields as {@code as}'s, read as {@code as}'s request. */
  static <Q> MethodDescriptor<Q, byte[]> answering(MethodDescriptor<?, ?> method, MethodDescriptor<Q, ?> as) {
    return method.toBuilder(as.getRequestMarshaller(), BYTES).build();
  }

  /** The claims of one answer by UID, a later entry for a UID replacing an earlier one as a protobuf map does. */
  static final class Claims {
    private final Map<String, byte[]> entries = new LinkedHashMap<>();

    /** {@code NodePrepareResourceResponse}: {@code devices = 1}, {@code error = 2}. */
    void prepared(String uid, String error, List<PreparedDevice> devices) {
      entries.put(uid, message(out -> {
        for (PreparedDevice d : devices) {
          out.writeByteArray(1, device(d));
        }
        if (!error.isEmpty()) {
          out.writeString(2, error);
        }
      }));
    }

    /** {@code NodeUnprepareResourceResponse}: {@code error = 1}. */
    void unprepared(String uid, String error) {
      entries.put(uid, message(out -> {
        if (!error.isEmpty()) {
          out.writeString(1, error);
        }
      }));
    }

    /** The answer: {@code map<string, ...> claims = 1}, each entry a message of {@code key = 1, value = 2}. */
    byte[] toBytes() {
      return message(out -> {
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
          out.writeByteArray(1, message(entry -> {
            entry.writeString(1, e.getKey());
            entry.writeByteArray(2, e.getValue());
          }));
        }
      });
    }
  }

  /**
   * {@code Device}: {@code request_names = 1}, {@code pool_name = 2}, {@code device_name = 3},
   * {@code cdi_device_ids = 4}, and {@code optional share_id = 5} (KEP-5075), sent only for a share.
   */
  private static byte[] device(PreparedDevice d) {
    return message(out -> {
      for (String name : d.requestNames()) {
        out.writeString(1, name);
      }
      if (!d.pool().isEmpty()) {
        out.writeString(2, d.pool());
      }
      if (!d.device().isEmpty()) {
        out.writeString(3, d.device());
      }
      for (String id : d.cdiDeviceIds()) {
        out.writeString(4, id);
      }
      if (d.isShare()) {
        out.writeString(5, d.shareId());
      }
    });
  }

  private interface Fields {
    void writeTo(CodedOutputStream out) throws IOException;
  }

  private static byte[] message(Fields fields) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
    CodedOutputStream out = CodedOutputStream.newInstance(bytes, 128);
    try {
      fields.writeTo(out);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** Sends an answer's bytes as they are; gRPC reads their length and drains them without a copy. */
  private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new Answer(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      throw new UnsupportedOperationException("the plugin sends these answers, it never reads one");
    }
  };

  private static final class Answer extends ByteArrayInputStream implements KnownLength, Drainable {
    Answer(byte[] bytes) {
      super(bytes);
    }

    @Override
    public synchronized int drainTo(OutputStream target) throws IOException {
      int n = count - pos;
      target.write(buf, pos, n);
      pos = count;
      return n;
    }
  }
}
