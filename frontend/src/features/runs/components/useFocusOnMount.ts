import { useEffect, useRef } from "react";

/** A ref for the element (a form's heading, with tabIndex -1) that takes the focus when it appears, so a
 * keyboard or screen reader user lands on the form that waits for them. */
export function useFocusOnMount<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return ref;
}
