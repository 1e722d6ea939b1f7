// stub
export default function Page() {
  return <h1>sessions</h1>;
}
