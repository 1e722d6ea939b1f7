// A form's fields held as one values object: the input handler of each field writes its text into that object.

/** `set(name)` is the onInput/onChange handler of the input, textarea or select holding `values[name]`. */
export function fieldSetter<V extends object>(values: V, onChange: (values: V) => void) {
  return (name: keyof V) => (event: Event) => {
    const target = event.currentTarget;
    if (
      target instanceof HTMLInputElement ||
      target instanceof HTMLTextAreaElement ||
      target instanceof HTMLSelectElement
    )
      onChange({ ...values, [name]: target.value });
  };
}
