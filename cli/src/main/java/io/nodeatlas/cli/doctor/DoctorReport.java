package io.nodeatlas.cli.doctor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.nodeatlas.discovery.doctor.DoctorCheck;
import io.nodeatlas.discovery.doctor.DoctorContext;
import io.nodeatlas.discovery.doctor.Finding;
import io.nodeatlas.discovery.doctor.Verdict;
import io.nodeatlas.discovery.host.Excerpt;
import io.nodeatlas.discovery.report.NodeReport;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The findings of one doctor run and how they print: a summary line first, then failures, warnings and
 * passes, each failure and warning with its fix (answers before details); or the same as JSON or YAML.
 */
record DoctorReport(List<Finding> findings) {

  enum Format {
    TABLE, JSON, YAML;

    static Optional<Format> of(String text) {
      return switch (text) {
        case "table" -> Optional.of(TABLE);
        case "json" -> Optional.of(JSON);
        case "yaml" -> Optional.of(YAML);
        default -> Optional.empty();
      };
    }
  }

  /** Runs every check; one that throws becomes a failure of its own, and the others still run. */
  static DoctorReport run(List<DoctorCheck> checks, DoctorContext context, NodeReport discovery) {
    List<Finding> all = new ArrayList<>();
    discovery.sources().forEach((name, status) -> {
      if (status.isFailed()) {
        all.add(Finding.warn("discovery." + name, "the " + name + " source failed: " + Excerpt.scrub(status.reason()),
            "nodeatlas discover --sources " + name + " shows why; its checks below see none of its devices"));
      }
    });
    for (DoctorCheck check : checks) {
      try {
        all.addAll(check.run(context));
      } catch (RuntimeException e) {
        all.add(Finding.fail(check.name(), "the check could not run: " + Excerpt.scrub(String.valueOf(e.getMessage())),
            "run the command again; if it repeats, report it with this line"));
      }
    }
    List<Finding> sorted = new ArrayList<>(all);
    sorted.sort(Comparator.comparingInt((Finding f) -> -f.verdict().ordinal()));
    return new DoctorReport(List.copyOf(sorted));
  }

  boolean anyFailed() {
    return findings.stream().anyMatch(f -> f.verdict() == Verdict.FAIL);
  }

  Map<Verdict, Integer> counts() {
    Map<Verdict, Integer> n = new EnumMap<>(Verdict.class);
    for (Verdict v : Verdict.values()) {
      n.put(v, 0);
    }
    findings.forEach(f -> n.merge(f.verdict(), 1, Integer::sum));
    return n;
  }

  String render(Format format, String hostRoot) {
    return switch (format) {
      case TABLE -> table(hostRoot);
      case JSON -> serialize(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)) + "\n";
      case YAML -> serialize(new ObjectMapper(YAMLFactory.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).build()));
    };
  }

  private String table(String hostRoot) {
    Map<Verdict, Integer> n = counts();
    StringBuilder out = new StringBuilder();
    String verdict = n.get(Verdict.FAIL) > 0 ? "something will stop devices from reaching containers"
        : n.get(Verdict.WARN) > 0 ? "nothing fails; some things are worth a look" : "ready";
    int warnings = n.get(Verdict.WARN);
    out.append("nodeatlas doctor: ").append(verdict).append(" (").append(n.get(Verdict.FAIL)).append(" failed, ")
        .append(warnings).append(warnings == 1 ? " warning, " : " warnings, ").append(n.get(Verdict.OK)).append(" ok")
        .append(hostRoot.equals("/") ? "" : "; host root " + hostRoot).append(")\n\n");
    int width = findings.stream().mapToInt(f -> f.check().length()).max().orElse(5);
    width = Math.max(width, 5);
    out.append(String.format("%-6s %-" + width + "s %s%n", "RESULT", "CHECK", "WHAT WE SAW"));
    for (Finding f : findings) {
      out.append(String.format("%-6s %-" + width + "s %s%n", f.verdict().word(), f.check(), f.saw()));
      if (!f.fix().isEmpty()) {
        out.append(" ".repeat(7 + width + 1)).append("fix: ").append(f.fix()).append('\n');
      }
    }
    return out.toString();
  }

  private String serialize(ObjectMapper mapper) {
    Map<String, Object> doc = new LinkedHashMap<>();
    Map<String, Integer> summary = new LinkedHashMap<>();
    counts().forEach((v, c) -> summary.put(v.word(), c));
    doc.put("summary", summary);
    List<Map<String, String>> rows = new ArrayList<>();
    for (Finding f : findings) {
      Map<String, String> row = new LinkedHashMap<>();
      row.put("check", f.check());
      row.put("result", f.verdict().word());
      row.put("saw", f.saw());
      if (!f.fix().isEmpty()) {
        row.put("fix", f.fix());
      }
      rows.add(row);
    }
    doc.put("findings", rows);
    try {
      return mapper.writeValueAsString(doc);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the report", e);
    }
  }
}
