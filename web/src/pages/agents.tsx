// stub
export default function Page() {
  return <h1>agents</h1>;
}
