// stub
export default function Page() {
  return <h1>chat</h1>;
}
