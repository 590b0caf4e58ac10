package io.nodeatlas.discovery.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.nodeatlas.discovery.pci.PciAddress;
import io.nodeatlas.discovery.topology.CpuSet;
import io.nodeatlas.discovery.topology.Topology.CacheInfo;
import io.nodeatlas.discovery.topology.Topology.CacheType;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Records whose equals and hashCode are written out for the discover path (see {@link CacheInfo})
 * keep a record's meaning: equal exactly when every component is equal, equal hash codes when equal.
 * A component added later without its line in equals fails here.
 */
class WrittenOutEqualityTest {

  @Test
  void aCacheEqualsAnotherExactlyWhenEveryComponentDoes() throws Exception {
    assertComponentWise(CacheInfo.class,
        new Object[] {2, CacheType.UNIFIED, 1L << 20, CpuSet.range(0, 3)},
        new Object[] {3, CacheType.DATA, 1L << 21, CpuSet.range(4, 7)});
  }

  @Test
  void aPciAddressEqualsAnotherExactlyWhenEveryComponentDoes() throws Exception {
    assertComponentWise(PciAddress.class, new Object[] {0x10000L, 0x3b, 0x1f, 7}, new Object[] {0L, 0x3c, 0, 1});
    assertThat(PciAddress.parse("00000000:3B:00.0")).isEqualTo(PciAddress.parse("0000:3b:00.0"))
        .hasSameHashCodeAs(PciAddress.parse("0000:3b:00.0"));
  }

  /**
   * {@code base} and {@code other} are canonical-constructor arguments that differ in every component;
   * a record built from {@code base} with one argument taken from {@code other} must differ, and one
   * built from {@code base} again must be equal with the same hash code.
   */
  private static <R extends Record> void assertComponentWise(Class<R> type, Object[] base, Object[] other)
      throws Exception {
    RecordComponent[] components = type.getRecordComponents();
    assertThat(base).hasSameSizeAs(components);
    Constructor<R> canonical =
        type.getDeclaredConstructor(Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new));
    R record = canonical.newInstance(base);
    R same = canonical.newInstance(base.clone());
    assertThat(record).isEqualTo(same).hasSameHashCodeAs(same);
    assertThat(record).isNotEqualTo(null).isNotEqualTo("not a record");
    for (int i = 0; i < components.length; i++) {
      Object[] args = base.clone();
      args[i] = other[i];
      assertThat(canonical.newInstance(args)).as("differs in %s", components[i].getName()).isNotEqualTo(record);
    }
  }
}
