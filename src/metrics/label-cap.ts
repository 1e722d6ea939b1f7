// Bounds the values a metric label takes: past a cap of distinct values per label, new ones are counted as `_other`.

/** The value a label takes once its cap of distinct values is reached. */
export const OTHER_LABEL_VALUE = '_other';

export interface LabelCaps {
  /** `value` when `label` has seen it before or still has room, else OTHER_LABEL_VALUE. */
  cap(label: string, value: string): string;
}

/**
 * One set of seen values per label name, shared by every metric using that label (an agent id counts once whether
 * it came in through a turn or a token count), so the exposition grows by at most `maxValues` per label.
 */
export function createLabelCaps(maxValues: number): LabelCaps {
  const seen = new Map<string, Set<string>>();
  return {
    cap(label, value) {
      let values = seen.get(label);
      if (values === undefined) {
        values = new Set();
        seen.set(label, values);
      }
      if (values.has(value)) return value;
      if (values.size >= maxValues) return OTHER_LABEL_VALUE;
      values.add(value);
      return value;
    },
  };
}
