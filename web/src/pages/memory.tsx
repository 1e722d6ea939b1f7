// stub
export default function Page() {
  return <h1>memory</h1>;
}
