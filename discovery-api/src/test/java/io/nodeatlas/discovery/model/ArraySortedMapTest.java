package io.nodeatlas.discovery.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** A device's maps in two arrays answer as the TreeMap they were copied from, and cannot be changed. */
class ArraySortedMapTest {

  static final TreeMap<String, Integer> TREE = new TreeMap<>(Map.of(
      "resource.kubernetes.io/numaNode", 1, "nodeatlas.io/type", 2, "nodeatlas.io/uuid", 3, "a.example.com/z", 4));

  @Test
  void itEqualsIteratesAndLooksUpLikeItsTreeMap() {
    SortedMap<String, Integer> map = ArraySortedMap.copyOf(TREE);
    assertThat(map).isEqualTo(TREE).hasSameHashCodeAs(TREE).hasToString(TREE.toString());
    assertThat(TREE).isEqualTo(map);
    assertThat(new ArrayList<>(map.keySet())).containsExactlyElementsOf(TREE.keySet());
    assertThat(new ArrayList<>(map.values())).containsExactlyElementsOf(TREE.values());
    List<String> seen = new ArrayList<>();
    map.forEach((k, v) -> seen.add(k + "=" + v));
    assertThat(seen).containsExactly("a.example.com/z=4", "nodeatlas.io/type=2", "nodeatlas.io/uuid=3",
        "resource.kubernetes.io/numaNode=1");
    for (String key : TREE.keySet()) {
      assertThat(map.get(key)).isEqualTo(TREE.get(key));
      assertThat(map.containsKey(key)).isTrue();
    }
    assertThat(map.get("nodeatlas.io/typ")).isNull();
    assertThat(map.containsKey(42)).isFalse();
    assertThat(map.firstKey()).isEqualTo(TREE.firstKey());
    assertThat(map.lastKey()).isEqualTo(TREE.lastKey());
    assertThat(map.headMap("nodeatlas.io/uuid")).isEqualTo(TREE.headMap("nodeatlas.io/uuid"));
    assertThat(map.tailMap("nodeatlas.io/uuid")).isEqualTo(TREE.tailMap("nodeatlas.io/uuid"));
    assertThat(map.subMap("b", "o")).isEqualTo(TREE.subMap("b", "o"));
    assertThat(map.comparator()).isNull();
  }

  @Test
  void itCannotBeChangedNorChangesWithItsSource() {
    TreeMap<String, Integer> source = new TreeMap<>(TREE);
    SortedMap<String, Integer> map = ArraySortedMap.copyOf(source);
    source.put("nodeatlas.io/extra", 9);
    assertThat(map).isEqualTo(TREE);
    assertThatThrownBy(() -> map.put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> map.entrySet().iterator().remove()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> map.headMap("z").clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aDevicesMapsAreCopiesInNaturalOrder() {
    TreeMap<String, AttributeValue> reversed = new TreeMap<>(java.util.Comparator.reverseOrder());
    reversed.put("nodeatlas.io/a", AttributeValue.string("x"));
    reversed.put("nodeatlas.io/b", AttributeValue.string("y"));
    Device d = new Device("gpu-0", "gpu", reversed, new TreeMap<>(), null);
    assertThat(d.attributes().firstKey()).isEqualTo("nodeatlas.io/a");
    assertThat(d.requestPolicies()).isEmpty();
  }

  @Test
  void aDeviceHandedAnotherDevicesMapHoldsThatMapAndFreshMapsAreStillChecked() {
    TreeMap<String, AttributeValue> attributes = new TreeMap<>(Map.of("nodeatlas.io/type", AttributeValue.string("gpu")));
    TreeMap<String, Quantity> capacity = new TreeMap<>(Map.of("nodeatlas.io/memory", Quantity.of(1024)));
    Device first = new Device("gpu-0", "gpu", attributes, capacity, null);
    Device second = new Device("gpu-1", "gpu", first.attributes(), first.capacity(), null);

    assertThat(second.attributes()).isSameAs(first.attributes()).isEqualTo(attributes).hasSameHashCodeAs(attributes);
    assertThat(second.capacity()).isSameAs(first.capacity());
    assertThat(ArraySortedMap.copyOf(TREE)).isEqualTo(ArraySortedMap.copyOf(new TreeMap<>(TREE)))
        .isNotEqualTo(ArraySortedMap.copyOf(Map.of("nodeatlas.io/type", 2)));
    TreeMap<String, AttributeValue> bad = new TreeMap<>(attributes);
    bad.put("nodeatlas.io/not a name", AttributeValue.string("x"));
    assertThatThrownBy(() -> new Device("gpu-2", "gpu", bad, first.capacity(), null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a name");
  }
}
