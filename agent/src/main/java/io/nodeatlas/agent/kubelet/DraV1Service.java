package io.nodeatlas.agent.kubelet;

import io.grpc.BindableService;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.nodeatlas.agent.claims.CallBudget;
import io.nodeatlas.agent.claims.ClaimPreparer;
import io.nodeatlas.agent.claims.ClaimRef;
import io.nodeatlas.agent.claims.ClaimResult;
import io.nodeatlas.agent.kubelet.api.dra.v1.Claim;
import io.nodeatlas.agent.kubelet.api.dra.v1.DRAPluginGrpc;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodePrepareResourcesRequest;
import io.nodeatlas.agent.kubelet.api.dra.v1.NodeUnprepareResourcesRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin}. Only translates; the work is
 * in {@link ClaimPreparer}, the answers' wire bytes are written by {@link AnswerWire}. A claim without UID fails that claim, never the whole call (an RPC error
 * would make the kubelet drop every claim's answer).
 *
 * <p>Each call gets a {@link CallBudget} from its gRPC deadline (the kubelet's DRA plugin client sets
 * 45 s on every NodePrepareResources / NodeUnprepareResources), less a margin for the answer to travel,
 * and at most {@link ClaimPreparer#DEFAULT_CALL_BUDGET}: the answer leaves before the kubelet gives up,
 * with an error for each claim not done by then. A call the kubelet cancels (or whose deadline passes)
 * abandons its budget at once, so no claim of it is started or carried on afterwards.
 */
final class DraV1Service implements BindableService {

  private final ClaimPreparer preparer;
  private final Executor calls;

  /**
   * {@code calls}: the threads that serve the calls. The server runs this service's callbacks on its
   * event loop (it is built with a direct executor), so a call costs one hand-off, here, to a thread
   * that may block on the API server and on fsync, instead of one per callback of the call (stream
   * created, message, half close), each a wake-up of a pool thread.
   */
  DraV1Service(ClaimPreparer preparer, Executor calls) {
    this.preparer = preparer;
    this.calls = calls;
  }

  @Override
  public ServerServiceDefinition bindService() {
    return ServerServiceDefinition.builder(DRAPluginGrpc.SERVICE_NAME)
        .addMethod(AnswerWire.answering(DRAPluginGrpc.getNodePrepareResourcesMethod()),
            ServerCalls.asyncUnaryCall((request, response) -> answer(response, () -> prepare(request))))
        .addMethod(AnswerWire.answering(DRAPluginGrpc.getNodeUnprepareResourcesMethod()),
            ServerCalls.asyncUnaryCall((request, response) -> answer(response, () -> unprepare(request))))
        .build();
  }

  /**
   * Computes the answer of the current call on a thread of {@link #calls}, with the call's context (its
   * deadline and cancellation, which {@link #withBudget} reads), and sends it. A fault is answered as
   * gRPC answers an exception out of a handler ({@code UNKNOWN}, or the status thrown); a call refused
   * because the server is stopping is answered {@code UNAVAILABLE}, which the kubelet retries.
   */
  <T> void answer(StreamObserver<T> response, Supplier<T> body) {
    Runnable work = () -> {
      try {
        T out;
        try {
          out = body.get();
        } catch (StatusRuntimeException e) {
          response.onError(e);
          return;
        } catch (RuntimeException | Error e) {
          // What gRPC does with a handler's exception: UNKNOWN, so the kubelet's call ends now instead
          // of at its deadline; an Error (out of memory) still goes on to the thread afterwards.
          response.onError(Status.UNKNOWN.withDescription(e.toString()).withCause(e).asRuntimeException());
          if (e instanceof Error error) {
            throw error;
          }
          return;
        }
        response.onNext(out);
        response.onCompleted();
      } catch (StatusRuntimeException cancelled) {
        // The kubelet cancelled the call (or its deadline passed) meanwhile: no one is left to read the answer.
      }
    };
    try {
      calls.execute(Context.current().wrap(work));
    } catch (RejectedExecutionException stopping) {
      response.onError(Status.UNAVAILABLE.withDescription("the plugin is shutting down").asRuntimeException());
    }
  }

  /** The answer's margin before the caller's deadline: a tenth of the time left, at most 2 s. */
  static final Duration ANSWER_MARGIN = Duration.ofSeconds(2);

  /** Runs {@code work} with the budget of the current gRPC call. */
  static <T> T withBudget(Function<CallBudget, T> work) {
    Context context = Context.current();
    long nanos = ClaimPreparer.DEFAULT_CALL_BUDGET.toNanos();
    Deadline deadline = context.getDeadline();
    if (deadline != null) {
      long left = deadline.timeRemaining(TimeUnit.NANOSECONDS);
      nanos = Math.min(nanos, left - Math.min(ANSWER_MARGIN.toNanos(), left / 10));
    }
    CallBudget budget = CallBudget.after(Duration.ofNanos(Math.max(0, nanos)));
    Context.CancellationListener cancelled = c -> budget.abandon(
        c.getDeadline() != null && c.getDeadline().isExpired() ? "the kubelet's deadline passed" : "the kubelet cancelled the call");
    context.addListener(cancelled, Runnable::run);
    try {
      return work.apply(budget);
    } finally {
      context.removeListener(cancelled);
    }
  }

  /** The wire bytes of the {@code NodePrepareResourcesResponse} to {@code request}. */
  byte[] prepare(NodePrepareResourcesRequest request) {
    AnswerWire.Claims out = new AnswerWire.Claims();
    List<ClaimRef> refs = KubeletClaims.valid(request.getClaimsList(), Claim::getNamespace, Claim::getName, Claim::getUid,
        (uid, error) -> out.prepared(uid, error, List.of()));
    Map<String, ClaimResult> results = withBudget(budget -> preparer.prepare(refs, budget));
    for (Map.Entry<String, ClaimResult> e : results.entrySet()) {
      out.prepared(e.getKey(), e.getValue().error(), e.getValue().devices());
    }
    return out.toBytes();
  }

  /** The wire bytes of the {@code NodeUnprepareResourcesResponse} to {@code request}. */
  byte[] unprepare(NodeUnprepareResourcesRequest request) {
    AnswerWire.Claims out = new AnswerWire.Claims();
    List<ClaimRef> refs = KubeletClaims.valid(request.getClaimsList(), Claim::getNamespace, Claim::getName, Claim::getUid,
        (uid, error) -> out.unprepared(uid, error));
    withBudget(budget -> preparer.unprepare(refs, budget)).forEach(out::unprepared);
    return out.toBytes();
  }
}
