package io.nodeatlas.agent.claims;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The checkpoint file of each format version as a typed record, each read by Jackson from the file of
 * its version and upgraded on read to the next: format 1 → v2.1 → v2.2 → v2.3, the current one, which
 * is also what a commit writes. A version's record names the members that version defines; members of
 * a newer minor version are kept beside it by {@link CheckpointCodec}, not here.
 *
 * <p>Claim entries stay JSON trees up to v2.3 because a writer keeps every entry as it read it (so an
 * agent rolled back reads its own members again): an entry written by v2.2 keeps {@code cpus} in a
 * v2.3 file, and one written by v2.3 keeps {@code placement} in a file a rolled-back v2.2 agent wrote.
 * {@link PreparedClaim} reads both.
 */
sealed interface CheckpointDocument
    permits CheckpointDocument.Format1, CheckpointDocument.V2_1, CheckpointDocument.V2_2, CheckpointDocument.V2_3,
    CheckpointDocument.V3_0 {

  /** The version the file was written in. */
  CheckpointVersion written();

  /**
   * The same content in the next version's record; the current version's record is itself.
   *
   * @throws IllegalArgumentException with the reason, when the content cannot be upgraded
   */
  CheckpointDocument upgrade(ObjectMapper json);

  /** This document upgraded step by step to the current version. */
  default V3_0 current(ObjectMapper json) {
    CheckpointDocument d = this;
    while (!(d instanceof V3_0 v)) {
      d = d.upgrade(json);
    }
    return v;
  }

  /**
   * Format 1, before versions were {@code v<major>.<minor>}: {@code "version": 1} and a list of claims,
   * whose checksum is the SHA-256 of the list's compact encoding with members sorted.
   */
  record Format1(String kind, int version, String checksum, List<PreparedClaim> claims) implements CheckpointDocument {
    @Override
    public CheckpointVersion written() {
      return new CheckpointVersion(1, 0);
    }

    /** To v2.1: the claims by UID, none of them a share (format 1 had none). */
    @Override
    public V2_1 upgrade(ObjectMapper json) {
      SortedMap<String, JsonNode> byUid = new TreeMap<>();
      for (PreparedClaim c : claims) {
        if (c == null || c.claim() == null || c.devices() == null) {
          throw new IllegalArgumentException("incomplete claim entry");
        }
        if (byUid.put(c.claim().uid(), json.valueToTree(c)) != null) {
          throw new IllegalArgumentException("claim UID " + c.claim().uid() + " appears twice");
        }
      }
      return new V2_1(kind, written().toString(), byUid);
    }
  }

  /**
   * v2.0 and v2.1: {@code kind}, {@code version} and {@code claims} by UID. v2.1 added the share members
   * of a device entry ({@code shareId}, {@code consumedCapacity}, {@code cpus}: KEP-5075); a v2.0 entry is
   * one without shares, so one record reads both.
   */
  record V2_1(String kind, String version, SortedMap<String, JsonNode> claims) implements CheckpointDocument {
    public V2_1 {
      claims = claims == null ? null : Collections.unmodifiableSortedMap(new TreeMap<>(claims));
    }

    @Override
    public CheckpointVersion written() {
      return CheckpointVersion.parse(version).orElseThrow();
    }

    /** To v2.2: the boot the file was written in is unknown. */
    @Override
    public V2_2 upgrade(ObjectMapper json) {
      return new V2_2(kind, version, claims, null);
    }
  }

  /**
   * v2.2 added {@code boot}: the kernel's boot ID ({@code /proc/sys/kernel/random/boot_id}, {@code
   * Documentation/admin-guide/sysctl/kernel.rst}) of the boot the file was last written in, and the claims
   * recorded in an earlier boot that the kubelet has not prepared again since.
   */
  record V2_2(String kind, String version, SortedMap<String, JsonNode> claims, BootRecord boot) implements CheckpointDocument {
    public V2_2 {
      claims = claims == null ? null : Collections.unmodifiableSortedMap(new TreeMap<>(claims));
    }

    @Override
    public CheckpointVersion written() {
      return CheckpointVersion.parse(version).orElseThrow();
    }

    /** To v2.3, whose entries read a v2.2 share's {@code cpus} as its family's placement, version 1. */
    @Override
    public V2_3 upgrade(ObjectMapper json) {
      return new V2_3(kind, version, claims, boot);
    }
  }

  /**
   * v2.3: a share's {@code placement} ({@link io.nodeatlas.discovery.share.Placement},
   * {@code {"value": <text>, "version": <n>}}) replaces v2.2's {@code cpus}. Its newer minor versions are
   * read with this record too. The file an agent writes while it keeps no journal (a v2 reader can read it).
   */
  record V2_3(String kind, String version, SortedMap<String, JsonNode> claims, BootRecord boot) implements CheckpointDocument {
    public V2_3 {
      claims = claims == null ? null : Collections.unmodifiableSortedMap(new TreeMap<>(claims));
    }

    @Override
    public CheckpointVersion written() {
      return CheckpointVersion.parse(version).orElseThrow();
    }

    /** To v3.0: no journal holds changes beyond this file. */
    @Override
    public V3_0 upgrade(ObjectMapper json) {
      return new V3_0(kind, version, claims, boot, null);
    }
  }

  /**
   * v3.0, the current version: v2.3's snapshot and {@code journal}, the generation of the journal that
   * holds the changes made since ({@link CheckpointJournal}). A major version, so that an agent that reads
   * only v2 refuses the file instead of reading the snapshot without its journal.
   */
  record V3_0(String kind, String version, SortedMap<String, JsonNode> claims, BootRecord boot, JournalRef journal)
      implements CheckpointDocument {
    public V3_0 {
      claims = claims == null ? null : Collections.unmodifiableSortedMap(new TreeMap<>(claims));
    }

    @Override
    public CheckpointVersion written() {
      return CheckpointVersion.parse(version).orElseThrow();
    }

    @Override
    public V3_0 upgrade(ObjectMapper json) {
      return this;
    }
  }

  /** The {@code journal} member (v3.0): which journal file continues the snapshot. */
  record JournalRef(@JsonProperty(value = "generation", required = true) long generation) {
    public JournalRef {
      if (generation < 1) {
        throw new IllegalArgumentException("journal generation " + generation + " is not positive");
      }
    }
  }

  /**
   * The {@code boot} member (v2.2): the ID as the kernel gives it, and the UIDs of claims recorded in an
   * earlier boot. Written only while it says something.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record BootRecord(@JsonProperty(value = "id", required = true) String id,
      @JsonProperty(value = "unconfirmed", required = true) List<String> unconfirmed) {
    /** The kernel writes the boot ID as a UUID in 36 characters; anything longer is not one. */
    static final int MAX_ID_CHARS = 64;

    public BootRecord {
      if (id == null || id.length() > MAX_ID_CHARS || unconfirmed == null || unconfirmed.stream().anyMatch(u -> u == null)) {
        throw new IllegalArgumentException("boot is not {\"id\": <boot ID>, \"unconfirmed\": [<claim UID>...]}");
      }
      unconfirmed = List.copyOf(new TreeSet<>(unconfirmed));
    }
  }
}
